import mqtt, { type MqttClient } from 'mqtt';
import { type UpRecord, batchSchema, parsePayload, rpcRequestSchema, upRecordSchema } from './contract.js';

interface DeviceLog {
  /** Records by id: the de-duplication the contract asks of the cloud. */
  byId: Map<string, UpRecord>;
  /** Highest seq with every record up to it stored. */
  contiguous: number;
  bySeq: Map<number, UpRecord>;
  duplicates: number;
}

const CANNED: Record<string, (params: Record<string, unknown>) => Record<string, unknown>> = {
  memory_tip: (p) => ({ tip: `把“${String(p.expected ?? '')}”放进句子里多读几遍。`, source: 'cloud-sim' }),
  generate_report: (p) => ({ wording: `（云端模拟）本期背诵 ${String(p.attempts ?? 0)} 次，继续加油！` }),
  // Judges every item it is sent as correct (a real grading agent reads the picture and the OCR text).
  grade_homework: (p) => ({
    items: (Array.isArray(p.items) ? p.items : []).map((it: unknown, i: number) => ({ index: typeof (it as { index?: unknown }).index === 'number' ? (it as { index: number }).index : i + 1, verdict: 'correct', judgment_basis: '（云端模拟）看过图片，判为正确' })),
    summary: '（云端模拟）',
    warnings: [],
  }),
  chat: (p) => ({ text: `（云端模拟）你说的是：${String(p.text ?? '').slice(0, 20)}` }),
};

/**
 * A reference cloud for developers and technicians (`npm run cloud:sim`): it subscribes to every
 * lamp, stores records de-duplicated by id, acknowledges cumulatively once everything up to a
 * seq is stored, and answers cloud calls with deterministic canned results.
 */
export class CloudSimulator {
  private client: MqttClient | undefined;
  readonly devices = new Map<string, DeviceLog>();
  /** Tests can hold acknowledgements back to simulate a slow or absent cloud. */
  acking = true;
  /** Tests can make the cloud silent for calls (the lamp's deadline passes, it queues the request). */
  answering = true;
  /** Calls received, by method. */
  readonly calls = new Map<string, number>();
  rejected = 0;

  constructor(private readonly url: string, private readonly auth: { username?: string; password?: string } = {}) {}

  async start(): Promise<void> {
    this.client = await mqtt.connectAsync(this.url, { clientId: `cloud-sim-${process.pid}-${Date.now()}`, protocolVersion: 5, clean: true, reconnectPeriod: 500, ...this.auth });
    this.client.on('message', (topic, payload, packet) => this.onMessage(topic, payload, packet.properties?.responseTopic, packet.properties?.correlationData));
    await this.client.subscribeAsync(['lamp/v1/+/up/#', 'lamp/v1/+/rpc/req', 'lamp/v1/+/status', 'lamp/v1/+/cmd/res'], { qos: 1 });
  }

  async stop(): Promise<void> {
    await this.client?.endAsync(true);
  }

  device(id: string): DeviceLog {
    let d = this.devices.get(id);
    if (!d) this.devices.set(id, (d = { byId: new Map(), contiguous: 0, bySeq: new Map(), duplicates: 0 }));
    return d;
  }

  readonly statuses = new Map<string, unknown>();
  readonly commandResults: unknown[] = [];

  /** Sends a command to a lamp. */
  command(deviceId: string, payload: unknown): void {
    this.client?.publish(`lamp/v1/${deviceId}/cmd`, typeof payload === 'string' ? payload : JSON.stringify(payload), { qos: 1 });
  }

  /** Acknowledges what is stored now (e.g. after `acking` was turned back on). */
  ackAll(): void {
    for (const id of this.devices.keys()) this.ack(id);
  }

  private ack(deviceId: string): void {
    if (!this.acking) return;
    const d = this.device(deviceId);
    this.client?.publish(`lamp/v1/${deviceId}/ack`, JSON.stringify({ acked_seq: d.contiguous }), { qos: 1 });
  }

  private store(deviceId: string, records: UpRecord[]): void {
    const d = this.device(deviceId);
    for (const r of records) {
      if (d.byId.has(r.id)) {
        d.duplicates++;
        continue;
      }
      d.byId.set(r.id, r);
      d.bySeq.set(r.seq, r);
    }
    while (d.bySeq.has(d.contiguous + 1)) d.contiguous++;
    this.ack(deviceId);
  }

  private onMessage(topic: string, payload: Buffer, responseTopic?: string, correlation?: Buffer): void {
    const m = /^lamp\/v1\/([^/]+)\/(.+)$/.exec(topic);
    if (!m) return;
    const [, deviceId, rest] = m as unknown as [string, string, string];
    if (rest === 'status') {
      try {
        this.statuses.set(deviceId, JSON.parse(payload.toString()));
      } catch {
        this.rejected++;
      }
      return;
    }
    if (rest === 'cmd/res') {
      try {
        this.commandResults.push(JSON.parse(payload.toString()));
      } catch {
        this.rejected++;
      }
      return;
    }
    if (rest === 'up/batch') {
      const p = parsePayload(batchSchema, payload);
      if (p.ok) this.store(deviceId, p.value.records);
      else this.rejected++;
      return;
    }
    if (rest.startsWith('up/')) {
      const p = parsePayload(upRecordSchema, payload);
      if (p.ok) this.store(deviceId, [p.value]);
      else this.rejected++;
      return;
    }
    if (rest === 'rpc/req') {
      const p = parsePayload(rpcRequestSchema, payload);
      if (!p.ok) {
        this.rejected++;
        return;
      }
      const req = p.value;
      this.calls.set(req.method, (this.calls.get(req.method) ?? 0) + 1);
      if (!this.answering) return;
      const answer = CANNED[req.method];
      const body = answer ? { id: req.id, result: answer(req.params) } : { id: req.id, error: { code: 'unknown_method', message: req.method } };
      this.client?.publish(responseTopic ?? `lamp/v1/${deviceId}/rpc/res`, JSON.stringify(body), { qos: 1, properties: correlation ? { correlationData: correlation } : {} });
    }
  }

  summary(): Record<string, { records: number; contiguous: number; duplicates: number }> {
    return Object.fromEntries([...this.devices].map(([id, d]) => [id, { records: d.byId.size, contiguous: d.contiguous, duplicates: d.duplicates }]));
  }
}
