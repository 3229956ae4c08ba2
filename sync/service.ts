import { readFileSync, statSync } from 'node:fs';
import type { Database } from 'better-sqlite3';
import type { Logger } from 'pino';
import { ErrorCode, LampError } from '../runtime/errors.js';
import type { Component } from '../runtime/lifecycle.js';
import { CloudClient } from './cloud.js';
import { type CommandDeps, CommandHandler } from './commands.js';
import type { Outbox } from './outbox.js';
import { DEFAULT_PUBLISHER, Publisher, type PublisherOptions } from './publisher.js';
import { type LinkOptions, MqttLink } from './link.js';

export interface Credentials {
  username?: string;
  password: string;
}

/** Reads the device credentials file; it must be readable by its owner only (mode 0600). */
export function readCredentials(file: string): Credentials {
  let mode: number;
  try {
    mode = statSync(file).mode;
  } catch (err) {
    throw new LampError(ErrorCode.CONFIG_FILE_UNREADABLE, `cannot read the credentials file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { file });
  }
  if ((mode & 0o077) !== 0) {
    throw new LampError(ErrorCode.CONFIG_CREDENTIALS_MODE, `the credentials file ${file} is readable by others (mode ${(mode & 0o777).toString(8)}); chmod 600 it`, { file });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new LampError(ErrorCode.CONFIG_FILE_NOT_JSON, `the credentials file ${file} is not JSON ({"username"?, "password"})`, { file });
  }
  const c = parsed as Credentials;
  if (typeof c !== 'object' || c === null || typeof c.password !== 'string' || (c.username !== undefined && typeof c.username !== 'string')) {
    throw new LampError(ErrorCode.CONFIG_INVALID, `the credentials file ${file} must hold {"username"?: string, "password": string}`, { file });
  }
  return c;
}

export interface SyncServiceOptions {
  db: Database;
  outbox: Outbox;
  link: Omit<LinkOptions, 'username' | 'password'> & { credentialsFile?: string };
  publisher?: Partial<PublisherOptions>;
  commands: Omit<CommandDeps, 'db' | 'log'>;
  log: Logger;
}

/** The whole cloud side of the lamp as one lifecycle component. */
export class SyncService implements Component {
  readonly name = 'sync';
  readonly dependsOn = ['storage'];
  private link: MqttLink | undefined;
  private publisher: Publisher | undefined;
  cloud: CloudClient | undefined;

  constructor(private readonly opts: SyncServiceOptions) {}

  async start(): Promise<void> {
    const { opts } = this;
    const creds = opts.link.credentialsFile ? readCredentials(opts.link.credentialsFile) : undefined;
    const commands = new CommandHandler({ ...opts.commands, db: opts.db, log: opts.log });
    const link = new MqttLink(
      { ...opts.link, username: creds?.username, password: creds?.password },
      {
        onConnected: () => publisher.onConnected(),
        onAck: (seq) => publisher.onAck(seq),
        onCommand: (cmd) => {
          const r = commands.handle(cmd);
          link.publish('cmdRes', { id: cmd.id, ...r });
        },
        onBadCommand: (reason, id) => link.publish('cmdRes', { id: id ?? 'unknown', ok: false, error: { code: 'bad_command', message: reason } }),
        onRpcResponse: (res) => {
          if (!this.cloud?.onResponse(res)) opts.log.debug({ id: res.id }, 'cloud answer for no waiting call (late or unknown); dropped');
        },
      },
      opts.log,
    );
    const publisher = new Publisher(opts.outbox, link, opts.log, { ...DEFAULT_PUBLISHER, ...opts.publisher });
    this.cloud = new CloudClient({
      get connected() {
        return link.connected;
      },
      send: (req) => link.publish('rpcReq', req, { correlationData: Buffer.from(req.id), responseTopic: link.responseTopic }),
    });
    this.link = link;
    this.publisher = publisher;
    link.start();
    publisher.start();
  }

  /** New records were committed: send them now. */
  pump(): void {
    this.publisher?.pump();
  }

  async stop(): Promise<void> {
    this.publisher?.stop();
    this.cloud?.close();
    await this.link?.stop();
  }

  health(): Record<string, unknown> {
    return { ...this.link?.health(), ...this.publisher?.health(), cloud: this.cloud?.health() };
  }
}
