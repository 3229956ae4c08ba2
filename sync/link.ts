import { readFileSync } from 'node:fs';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import type { Logger } from 'pino';
import { backoffDelay } from './backoff.js';
import { type UpRecord, ackSchema, commandSchema, parsePayload, rpcResponseSchema, topics } from './contract.js';
import type { UpwardChannel } from './publisher.js';

export interface LinkOptions {
  url: string;
  deviceId: string;
  version: string;
  username?: string;
  password?: string;
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  backoffBaseMs?: number;
  backoffCapMs?: number;
}

export interface LinkHandlers {
  onConnected(): void;
  onAck(seq: number): void;
  onCommand(cmd: import('./contract.js').Command): void;
  /** A command payload that could not be read: answered with an error by the caller. */
  onBadCommand(reason: string, id: string | undefined): void;
  onRpcResponse(res: import('./contract.js').RpcResponse): void;
}

/**
 * The MQTT connection of one lamp: MQTT 5, a fixed client id, QoS 1, a retained presence with a
 * last will, and reconnects with capped exponential back-off and jitter (mqtt.js's fixed-period
 * reconnect is off). Every inbound message is checked against its topic and schema; a bad one is
 * logged with its reason and changes nothing.
 */
export class MqttLink implements UpwardChannel {
  private client: MqttClient | undefined;
  private closing = false;
  private attempt = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly t: ReturnType<typeof topics>;
  private readonly since = new Date().toISOString();
  rejected = 0;
  connects = 0;

  constructor(
    private readonly opts: LinkOptions,
    private readonly handlers: LinkHandlers,
    private readonly log: Logger,
  ) {
    this.t = topics(opts.deviceId);
  }

  get connected(): boolean {
    return this.client?.connected === true;
  }

  start(): void {
    const o = this.opts;
    const status = (online: boolean): string => JSON.stringify({ online, version: o.version, since: this.since });
    const options: IClientOptions = {
      clientId: `lamp-${o.deviceId}`,
      protocolVersion: 5,
      clean: true,
      reconnectPeriod: 0,
      connectTimeout: 10_000,
      keepalive: 30,
      queueQoSZero: false,
      resubscribe: false,
      username: o.username ?? o.deviceId,
      password: o.password,
      will: { topic: this.t.status, payload: Buffer.from(status(false)), qos: 1, retain: true },
      ca: o.caFile ? readFileSync(o.caFile) : undefined,
      cert: o.certFile ? readFileSync(o.certFile) : undefined,
      key: o.keyFile ? readFileSync(o.keyFile) : undefined,
    };
    const client = mqtt.connect(o.url, options);
    this.client = client;
    client.on('connect', () => {
      this.attempt = 0;
      this.connects++;
      this.log.info({ url: o.url.replace(/\/\/[^@/]*@/, '//***@') }, 'cloud connected');
      client.publish(this.t.status, status(true), { qos: 1, retain: true });
      client.subscribe([this.t.ack, this.t.cmd, this.t.rpcRes], { qos: 1 }, (err) => {
        if (err) this.log.warn({ err: err.message }, 'subscribe failed');
        else this.handlers.onConnected();
      });
    });
    client.on('message', (topic, payload) => this.inbound(topic, payload));
    client.on('error', (err) => this.log.warn({ err: err.message }, 'mqtt error'));
    client.on('close', () => {
      if (this.closing) return; // closed on purpose: no reconnect
      const delay = backoffDelay(this.attempt++, this.opts.backoffBaseMs ?? 500, this.opts.backoffCapMs ?? 30_000);
      this.log.info({ delayMs: delay, attempt: this.attempt }, 'cloud connection lost; reconnecting');
      clearTimeout(this.reconnectTimer);
      this.reconnectTimer = setTimeout(() => {
        if (!this.closing) client.reconnect();
      }, delay);
      this.reconnectTimer.unref();
    });
  }

  async stop(): Promise<void> {
    this.closing = true;
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    if (!client) return;
    if (client.connected) {
      await new Promise<void>((resolve) => client.publish(this.t.status, JSON.stringify({ online: false, version: this.opts.version, since: this.since }), { qos: 1, retain: true }, () => resolve()));
    }
    await client.endAsync(true);
  }

  sendRecords(records: UpRecord[]): void {
    const client = this.client;
    if (!client?.connected) return;
    const one = records.length === 1 ? (records[0] as UpRecord) : undefined;
    const topic = one ? this.t.up(one.stream) : this.t.batch;
    client.publish(topic, JSON.stringify(one ?? { records }), { qos: 1 }, (err) => {
      if (err) this.log.debug({ err: err.message }, 'publish not completed; the outbox keeps the records');
    });
  }

  publish(topic: 'rpcReq' | 'cmdRes', payload: unknown, properties?: { correlationData?: Buffer; responseTopic?: string }): boolean {
    const client = this.client;
    if (!client?.connected) return false;
    client.publish(this.t[topic], JSON.stringify(payload), { qos: 1, properties });
    return true;
  }

  get responseTopic(): string {
    return this.t.rpcRes;
  }

  private reject(topic: string, reason: string): void {
    this.rejected++;
    this.log.warn({ topic, reason }, 'inbound message rejected');
  }

  private inbound(topic: string, payload: Buffer): void {
    try {
      if (topic === this.t.ack) {
        const p = parsePayload(ackSchema, payload);
        if (p.ok) this.handlers.onAck(p.value.acked_seq);
        else this.reject(topic, p.reason);
      } else if (topic === this.t.cmd) {
        const p = parsePayload(commandSchema, payload);
        if (p.ok) this.handlers.onCommand(p.value);
        else {
          this.reject(topic, p.reason);
          let id: string | undefined;
          try {
            const raw = JSON.parse(payload.toString('utf8')) as { id?: unknown };
            if (typeof raw.id === 'string' && raw.id.length <= 64) id = raw.id;
          } catch {
            // not JSON: no id to answer to
          }
          this.handlers.onBadCommand(p.reason, id);
        }
      } else if (topic === this.t.rpcRes) {
        const p = parsePayload(rpcResponseSchema, payload);
        if (p.ok) this.handlers.onRpcResponse(p.value);
        else this.reject(topic, p.reason);
      } else {
        this.reject(topic, 'not a topic of this device');
      }
    } catch (err) {
      this.reject(topic, `handler failed: ${(err as Error).message}`);
    }
  }

  health(): Record<string, unknown> {
    return { connected: this.connected, connects: this.connects, rejected_inbound: this.rejected };
  }
}
