import { ErrorCode, LampError } from '../runtime/errors.js';

export interface Pcm {
  sampleRate: number;
  /** Mono signed 16-bit samples. */
  samples: Int16Array;
}

/** Encodes mono S16LE PCM as a WAV file. */
export function encodeWav({ sampleRate, samples }: Pcm): Buffer {
  const header = Buffer.alloc(44);
  const dataBytes = samples.length * 2;
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  const body = Buffer.from(samples.buffer, samples.byteOffset, dataBytes);
  return Buffer.concat([header, body]);
}

/** Decodes a PCM WAV file (16-bit, mono or the first channel of several). Rejects anything else clearly. */
export function decodeWav(buf: Buffer, source = 'wav'): Pcm {
  const bad = (why: string): LampError => new LampError(ErrorCode.DRIVER_PROTOCOL, `${source} is not a usable WAV file: ${why}`, { source });
  if (buf.length < 12 || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') throw bad('no RIFF/WAVE header');
  let offset = 12;
  let fmt: { format: number; channels: number; sampleRate: number; bits: number } | undefined;
  while (offset + 8 <= buf.length) {
    const id = buf.toString('ascii', offset, offset + 4);
    const size = buf.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > buf.length) throw bad('short fmt chunk');
      fmt = { format: buf.readUInt16LE(body), channels: buf.readUInt16LE(body + 2), sampleRate: buf.readUInt32LE(body + 4), bits: buf.readUInt16LE(body + 14) };
    } else if (id === 'data') {
      if (!fmt) throw bad('data before fmt');
      if (fmt.format !== 1 || fmt.bits !== 16) throw bad(`only 16-bit PCM is supported (format ${fmt.format}, ${fmt.bits} bits)`);
      const end = Math.min(buf.length, body + size);
      const frames = Math.floor((end - body) / (2 * fmt.channels));
      const samples = new Int16Array(frames);
      for (let i = 0; i < frames; i++) samples[i] = buf.readInt16LE(body + i * 2 * fmt.channels);
      return { sampleRate: fmt.sampleRate, samples };
    }
    offset = body + size + (size % 2);
  }
  throw bad('no data chunk');
}
