import { type Logger, setLevel } from '../log.js';
import { configLeaves } from './env.js';
import { type LampConfig, configSchema } from './schema.js';

/**
 * Changes a field marked `live` while the lamp runs (the cloud's set_config command). The whole
 * config is validated with the new value first; returns an error text instead of applying a
 * value that is not allowed.
 */
export function setLiveConfig(config: LampConfig, path: string, value: unknown, log: Logger): string | undefined {
  const leaf = configLeaves(configSchema).find((l) => l.path.join('.') === path);
  if (!leaf) return `${path} is not a configuration field`;
  if (!leaf.live) return `${path} cannot change while the lamp runs`;
  const candidate = structuredClone(config) as unknown as Record<string, Record<string, unknown>>;
  const [head, ...rest] = leaf.path as [string, ...string[]];
  if (rest.length === 0) (candidate as Record<string, unknown>)[head] = value;
  else (candidate[head] as Record<string, unknown>)[rest.join('.')] = value;
  const check = configSchema.safeParse(candidate);
  if (!check.success) return `${path}: ${check.error.issues[0]?.message ?? 'invalid'}`;
  const target = (rest.length === 0 ? config : (config as unknown as Record<string, Record<string, unknown>>)[head]) as Record<string, unknown>;
  target[rest.length === 0 ? head : (rest[0] as string)] = value;
  if (path === 'log.level') setLevel(log, value as string);
  log.info({ path, value }, 'configuration changed by the cloud');
  return undefined;
}
