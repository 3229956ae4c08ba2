import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ErrorCode, LampError } from '../errors.js';
import { applyEnv } from './env.js';
import { configSchema, type LampConfig } from './schema.js';

export interface ConfigProblem {
  path: string;
  message: string;
  /** Where the bad value came from: the config file or the env variable. */
  source: string;
}

export interface LoadOptions {
  /** Config file (JSON); when absent, defaults plus environment only. */
  file?: string;
  env?: NodeJS.ProcessEnv;
  /** Base for relative paths in the config; defaults to the working directory. */
  cwd?: string;
}

function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new LampError(ErrorCode.CONFIG_FILE_UNREADABLE, `cannot read config file ${file}: ${(err as Error).message}`, { file });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new LampError(ErrorCode.CONFIG_FILE_NOT_JSON, `config file ${file} is not valid JSON: ${(err as Error).message}`, { file });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new LampError(ErrorCode.CONFIG_FILE_NOT_JSON, `config file ${file} must hold a JSON object`, { file });
  }
  return parsed as Record<string, unknown>;
}

/**
 * Loads and validates the configuration. On failure throws one LampError (CONFIG_INVALID) whose
 * `context.problems` lists every invalid field at once, with its path and source.
 */
export function loadConfig(opts: LoadOptions = {}): LampConfig {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const file = opts.file ?? (env.LAMP_CONFIG || undefined);
  const fromFile = file ? readConfigFile(path.resolve(cwd, file)) : {};
  const { merged, sources } = applyEnv(fromFile, configSchema, env);
  const result = configSchema.safeParse(merged);
  if (!result.success) {
    const problems: ConfigProblem[] = result.error.issues.map((issue) => {
      const keys = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [...issue.path, k].join('.')) : [issue.path.join('.')];
      const p = keys.join(', ') || '(root)';
      return { path: p, message: issue.message, source: sources.get(issue.path.join('.')) ?? (file ? path.basename(file) : 'defaults') };
    });
    const list = problems.map((p) => `  ${p.path}: ${p.message} [${p.source}]`).join('\n');
    throw new LampError(ErrorCode.CONFIG_INVALID, `invalid configuration, ${problems.length} problem(s):\n${list}\n`, { problems });
  }
  const config = result.data;
  config.dataDir = path.resolve(cwd, config.dataDir);
  config.models.dir = config.models.dir ? path.resolve(cwd, config.models.dir) : path.join(config.dataDir, 'models');
  return config;
}
