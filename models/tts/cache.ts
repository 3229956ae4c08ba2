import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../runtime/log.js';
import { decodeWav, encodeWav, type Pcm } from '../../drivers/wav.js';
import { detectLang, type SynthesizeOptions, type TextToSpeech } from './tts.js';

/**
 * Synthesised phrases kept on disk as WAV: the fixed things the lamp says often ("我在听呢",
 * "再读一遍好吗？") come back at once, and a slow neural voice is paid for once per phrase.
 * The key is the sha256 of engine, voice and text, so a new voice never plays an old recording.
 * Files are written to a temporary name and renamed, so a power cut leaves either the old file,
 * the new one or none; a file that is damaged anyway is made again and overwritten.
 */
export class PhraseCache {
  constructor(
    readonly dir: string,
    private readonly log?: Logger,
  ) {}

  static key(engine: string, voice: string, text: string): string {
    return createHash('sha256').update(`${engine}\u0000${voice}\u0000${text}`, 'utf8').digest('hex');
  }

  fileFor(key: string): string {
    return path.join(this.dir, `${key}.wav`);
  }

  /** The cached audio, or undefined when absent or unusable. */
  async get(key: string): Promise<Pcm | undefined> {
    let buf: Buffer;
    try {
      buf = await readFile(this.fileFor(key));
    } catch {
      return undefined;
    }
    const pcm = intact(buf);
    if (!pcm) this.log?.warn({ key }, 'phrase cache file is damaged; synthesising again');
    return pcm;
  }

  async put(key: string, pcm: Pcm): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const file = this.fileFor(key);
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(tmp, encodeWav(pcm));
      await rename(tmp, file);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  /** A TextToSpeech that answers from the cache and fills it. */
  wrap(tts: TextToSpeech): TextToSpeech {
    return new CachedTts(tts, this);
  }
}

class CachedTts implements TextToSpeech {
  readonly engine: TextToSpeech['engine'];
  readonly voice: string | undefined;

  constructor(
    private readonly inner: TextToSpeech,
    private readonly cache: PhraseCache,
  ) {
    this.engine = inner.engine;
    this.voice = inner.voice;
  }

  async synthesize(text: string, opts: SynthesizeOptions = {}): Promise<Pcm> {
    const lang = opts.lang ?? detectLang(text);
    const key = PhraseCache.key(this.engine, `${this.voice ?? 'default'}/${lang}`, text);
    const hit = await this.cache.get(key);
    if (hit) return hit;
    const pcm = await this.inner.synthesize(text, { ...opts, lang });
    // A full disk must not cost the child the answer: the phrase is simply not cached.
    await this.cache.put(key, pcm).catch(() => undefined);
    return pcm;
  }
}

/** The WAV exactly as encodeWav writes it (44-byte header, data size matching the file), else undefined. */
function intact(buf: Buffer): Pcm | undefined {
  if (buf.length < 46 || buf.length % 2 !== 0) return undefined;
  if (buf.toString('ascii', 36, 40) !== 'data' || buf.readUInt32LE(40) !== buf.length - 44 || buf.readUInt32LE(4) !== buf.length - 8) return undefined;
  try {
    const pcm = decodeWav(buf, 'phrase cache');
    return pcm.samples.length > 0 && pcm.sampleRate >= 8000 ? pcm : undefined;
  } catch {
    return undefined;
  }
}
