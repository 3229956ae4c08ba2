import type { z } from 'zod';

/** A leaf of the config schema: its path, the env variable that overrides it, and its kind. */
export interface ConfigLeaf {
  path: string[];
  env: string;
  kind: 'string' | 'number' | 'boolean' | 'enum' | 'other';
  live: boolean;
}

type AnySchema = z.ZodType;

interface Def {
  type: string;
  innerType?: AnySchema;
  shape?: Record<string, AnySchema>;
  in?: AnySchema;
}

function def(schema: AnySchema): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

function isLive(schema: AnySchema): boolean {
  return (schema.meta() as { live?: boolean } | undefined)?.live === true;
}

const WRAPPERS = new Set(['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch']);

function envName(path: string[]): string {
  return 'LAMP_' + path.map((p) => p.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()).join('_');
}

/** Lists every leaf of an object schema with the env variable derived from its path. */
export function configLeaves(schema: AnySchema, path: string[] = [], live = false): ConfigLeaf[] {
  let s = schema;
  let isLiveHere = live || isLive(s);
  while (WRAPPERS.has(def(s).type)) {
    s = def(s).innerType as AnySchema;
    isLiveHere ||= isLive(s);
  }
  const d = def(s);
  if (d.type === 'object' && d.shape) {
    return Object.entries(d.shape).flatMap(([key, child]) => configLeaves(child, [...path, key], isLiveHere));
  }
  const kind = d.type === 'string' || d.type === 'number' || d.type === 'boolean' || d.type === 'enum' ? d.type : 'other';
  return [{ path, env: envName(path), kind, live: isLiveHere }];
}

function convert(raw: string, kind: ConfigLeaf['kind']): unknown {
  if (kind === 'number') {
    const n = Number(raw);
    return raw.trim() !== '' && Number.isFinite(n) ? n : raw; // left as text so validation names the field
  }
  if (kind === 'boolean') {
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    return raw;
  }
  if (kind === 'other') {
    // Lists are given as JSON, e.g. LAMP_VOICE_WAKE_WORDS='["小灯小灯"]'.
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return raw;
    }
  }
  return raw;
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1] as string] = value;
}

/**
 * Applies `LAMP_*` overrides onto a raw config object (a copy is returned). Returns which paths
 * came from which variables so that validation errors can name the variable. An empty variable
 * counts as unset.
 */
export function applyEnv(
  raw: Record<string, unknown>,
  schema: AnySchema,
  env: NodeJS.ProcessEnv,
): { merged: Record<string, unknown>; sources: Map<string, string> } {
  const merged = structuredClone(raw);
  const sources = new Map<string, string>();
  for (const leaf of configLeaves(schema)) {
    const value = env[leaf.env];
    if (value === undefined || value === '') continue;
    setPath(merged, leaf.path, convert(value, leaf.kind));
    sources.set(leaf.path.join('.'), leaf.env);
  }
  return { merged, sources };
}
