#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { loadConfig } from './config/load.js';
import type { LampConfig } from './config/schema.js';
import { ErrorCode, isLampError } from './errors.js';
import { createLogger } from './log.js';

/** sysexits EX_CONFIG: the configuration is wrong; systemd will not restart into the same error. */
export const EXIT_CONFIG = 78;

const USAGE = `usage: lamp [--config FILE] <command> [options]

commands:
  start      run the lamp (simulator drivers unless configured otherwise)
  doctor     check config, database, disk, drivers and models; non-zero exit when broken (--json)
  version    print the version and git revision
  outbox-load --count N [--rate R]  write N synthetic upward records (a flood test; may run beside the lamp)
  route --jsonl  classify JSON lines {"id","text","scene"} from stdin (intent, confidence, slots)
  recite-check --jsonl  check recitations: JSON lines {"id","expected","recited"} from stdin
  grade-page --jsonl [--dump DIR] IMAGE...  check homework photos: one JSON line per image
  mqtt-docs    print the MQTT wire contract (docs/mqtt.md)
  config-docs  print the configuration reference (docs/configuration.md)

configuration: a JSON file (--config or LAMP_CONFIG) and LAMP_* environment variables;
see docs/configuration.md.`;

function loadOrExit(file: string | undefined): LampConfig {
  try {
    return loadConfig({ file });
  } catch (err) {
    if (isLampError(err)) {
      console.error(`lamp: ${err.message}`);
      process.exit(err.code === ErrorCode.CONFIG_INVALID || err.code === ErrorCode.CONFIG_FILE_NOT_JSON || err.code === ErrorCode.CONFIG_FILE_UNREADABLE ? EXIT_CONFIG : 1);
    }
    throw err;
  }
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { config: { type: 'string', short: 'c' }, help: { type: 'boolean', short: 'h' }, json: { type: 'boolean' }, jsonl: { type: 'boolean' }, count: { type: 'string' }, rate: { type: 'string' }, dump: { type: 'string' } },
    allowPositionals: true,
    strict: false,
  });
  const command = positionals[0];
  const configFile = typeof values.config === 'string' ? values.config : undefined;
  if (values.help || !command) {
    console.log(USAGE);
    return command || values.help ? 0 : 64;
  }
  switch (command) {
    case 'version': {
      const { VERSION, gitRevision } = await import('./version.js');
      console.log(`lamp ${VERSION}${gitRevision() ? ` (${gitRevision()})` : ''}`);
      return 0;
    }
    case 'outbox-load': {
      const config = loadOrExit(configFile);
      const { outboxLoadCommand } = await import('./commands/outbox-load.js');
      return outboxLoadCommand(config, Number(values.count), values.rate === undefined ? undefined : Number(values.rate));
    }
    case 'route': {
      const { routeCommand } = await import('./commands/route.js');
      return routeCommand();
    }
    case 'recite-check': {
      const { reciteCheckCommand } = await import('./commands/recite-check.js');
      return reciteCheckCommand();
    }
    case 'grade-page': {
      const config = loadOrExit(configFile);
      const { gradePageCommand } = await import('./commands/grade-page.js');
      const { dumpDirOf } = await import('./homework/service.js');
      return gradePageCommand(config, positionals.slice(1), { dumpDir: dumpDirOf(config, typeof values.dump === 'string' ? values.dump : undefined) });
    }
    case 'mqtt-docs': {
      const { mqttReference } = await import('../sync/contract-docs.js');
      process.stdout.write(mqttReference());
      return 0;
    }
    case 'config-docs': {
      const { configReference } = await import('./config/docs.js');
      process.stdout.write(configReference());
      return 0;
    }
    case 'doctor': {
      const { doctorCommand } = await import('./commands/doctor.js');
      return doctorCommand(configFile, values.json === true);
    }
    case 'start': {
      const config = loadOrExit(configFile);
      const log = await createLogger({ level: config.log.level, format: config.log.format });
      const { startCommand } = await import('./commands/start.js');
      return startCommand(config, log);
    }
    default:
      console.error(`lamp: unknown command "${command}"\n\n${USAGE}`);
      return 64;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error('lamp:', isLampError(err) ? err.message : err);
    process.exitCode = 1;
  },
);
