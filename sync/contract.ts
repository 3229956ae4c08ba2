import { z } from 'zod';

/**
 * The MQTT wire contract between a lamp and the cloud, version 1. docs/mqtt.md is generated from
 * these schemas (`lamp mqtt-docs`), so the document the cloud team builds against cannot drift.
 * Every inbound message is validated against its schema before anything acts on it.
 */
export const CONTRACT_VERSION = 1;

export const STREAMS = ['recitation_history', 'error_pattern', 'review_schedule', 'report', 'homework', 'event'] as const;

export function topics(deviceId: string) {
  const root = `lamp/v${CONTRACT_VERSION}/${deviceId}`;
  return {
    root,
    up: (stream: string) => `${root}/up/${stream}`,
    batch: `${root}/up/batch`,
    ack: `${root}/ack`,
    status: `${root}/status`,
    rpcReq: `${root}/rpc/req`,
    rpcRes: `${root}/rpc/res`,
    cmd: `${root}/cmd`,
    cmdRes: `${root}/cmd/res`,
  };
}

export const upRecordSchema = z
  .strictObject({
    id: z.uuid().describe('unique id of the record; the cloud de-duplicates by it'),
    seq: z.number().int().min(1).describe('per device, from 1, strictly increasing, gap-free, never reused'),
    stream: z.enum(STREAMS),
    schema: z.number().int().min(1).describe('version of the data shape of this stream'),
    ts: z.iso.datetime({ offset: true }).describe('when the lamp wrote the record (its monotonic clock)'),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ title: 'Upward record', description: 'lamp/v1/<device_id>/up/<stream>, QoS 1' });

export const batchSchema = z
  .strictObject({ records: z.array(upRecordSchema).min(1).max(1000) })
  .meta({ title: 'Batch of upward records', description: 'lamp/v1/<device_id>/up/batch, QoS 1; records in seq order' });

export const ackSchema = z
  .strictObject({ acked_seq: z.number().int().min(0).describe('every record with seq ≤ this is durably stored by the cloud') })
  .meta({ title: 'Acknowledgement', description: 'cloud → lamp/v1/<device_id>/ack, QoS 1, cumulative' });

export const statusSchema = z
  .strictObject({
    online: z.boolean(),
    version: z.string(),
    since: z.iso.datetime({ offset: true }),
  })
  .meta({ title: 'Presence', description: 'lamp/v1/<device_id>/status, retained; the last will publishes online=false' });

export const RPC_METHODS = ['grade_homework', 'generate_report', 'memory_tip', 'chat'] as const;

export const rpcRequestSchema = z
  .strictObject({
    id: z.uuid(),
    method: z.enum(RPC_METHODS),
    params: z.record(z.string(), z.unknown()),
    deadline: z.iso.datetime({ offset: true }).describe('the lamp stops waiting at this time; an answer after it is dropped'),
  })
  .meta({ title: 'Cloud call request', description: 'lamp/v1/<device_id>/rpc/req, QoS 1; MQTT 5 response topic and correlation data (the id) are also set' });

export const rpcResponseSchema = z
  .union([
    z.strictObject({ id: z.uuid(), result: z.record(z.string(), z.unknown()) }),
    z.strictObject({ id: z.uuid(), error: z.strictObject({ code: z.string().min(1).max(64), message: z.string().max(2000) }) }),
  ])
  .meta({ title: 'Cloud call response', description: 'cloud → lamp/v1/<device_id>/rpc/res, QoS 1' });

export const COMMANDS = ['push_materials', 'set_learning_plan', 'set_config', 'request_log_bundle', 'deliver_result'] as const;

export const commandSchema = z
  .strictObject({
    id: z.uuid(),
    name: z.enum(COMMANDS),
    params: z.record(z.string(), z.unknown()),
  })
  .meta({ title: 'Command', description: 'cloud → lamp/v1/<device_id>/cmd, QoS 1; executed at most once per id' });

export const commandResultSchema = z
  .strictObject({
    id: z.string().describe('the command id, or "unknown" when the command could not be read'),
    ok: z.boolean(),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.strictObject({ code: z.string(), message: z.string() }).optional(),
  })
  .meta({ title: 'Command result', description: 'lamp/v1/<device_id>/cmd/res, QoS 1' });

export type UpRecord = z.infer<typeof upRecordSchema>;
export type Ack = z.infer<typeof ackSchema>;
export type Command = z.infer<typeof commandSchema>;
export type RpcRequest = z.infer<typeof rpcRequestSchema>;
export type RpcResponse = z.infer<typeof rpcResponseSchema>;

/** Largest inbound payload the lamp reads; anything bigger is rejected unread. */
export const MAX_INBOUND_BYTES = 256 * 1024;

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

export function parsePayload<T>(schema: z.ZodType<T>, payload: Buffer): Parsed<T> {
  if (payload.length > MAX_INBOUND_BYTES) return { ok: false, reason: `payload of ${payload.length} bytes is over ${MAX_INBOUND_BYTES}` };
  let json: unknown;
  try {
    json = JSON.parse(payload.toString('utf8'));
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  const r = schema.safeParse(json);
  return r.success ? { ok: true, value: r.data } : { ok: false, reason: r.error.issues.map((i) => `${i.path.join('.') || '(message)'}: ${i.message}`).join('; ') };
}
