import { spawn } from 'node:child_process';
import { ErrorCode, LampError } from '../../runtime/errors.js';
import { decodeWav, type Pcm } from '../../drivers/wav.js';
import { detectLang, type SynthesizeOptions, type TextToSpeech, type TtsLang } from './tts.js';

export interface EspeakOptions {
  /** The binary; found on PATH by default. */
  binary?: string;
  /** Words per minute per language. espeak's default (175) is fast for a six-year-old. */
  speed?: Partial<Record<TtsLang, number>>;
  /** 0–99; a little higher than espeak's 50 sounds less stern. */
  pitch?: number;
  /** Kill a synthesis that takes longer than this. */
  timeoutMs?: number;
}

const VOICES: Record<TtsLang, string> = { zh: 'cmn', en: 'en-us' };
const DEFAULT_SPEED: Record<TtsLang, number> = { zh: 150, en: 145 };

/**
 * Speech from Debian's espeak-ng: robotic, but present on every board and on every development
 * machine. It runs as a child process with its arguments passed directly (no shell), reads the
 * text on stdin (no length limit, nothing in the text can be taken for an option) and writes a
 * 22050 Hz WAV to stdout, which is kept at that rate.
 */
export class EspeakTts implements TextToSpeech {
  readonly engine = 'espeak-ng' as const;
  readonly voice: string;
  private readonly binary: string;
  private readonly speed: Record<TtsLang, number>;
  private readonly pitch: number;
  private readonly timeoutMs: number;

  constructor(opts: EspeakOptions = {}) {
    this.binary = opts.binary ?? 'espeak-ng';
    this.speed = { ...DEFAULT_SPEED, ...opts.speed };
    this.pitch = opts.pitch ?? 60;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.voice = `zh=${VOICES.zh}@${this.speed.zh},en=${VOICES.en}@${this.speed.en},p${this.pitch}`;
  }

  async synthesize(text: string, opts: SynthesizeOptions = {}): Promise<Pcm> {
    const lang = opts.lang ?? detectLang(text);
    const args = ['-v', VOICES[lang], '-s', String(this.speed[lang]), '-p', String(this.pitch), '-b', '1', '--stdout'];
    const wav = await this.run(args, text);
    return decodeWav(wav, 'espeak-ng output');
  }

  private run(args: string[], text: string): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.binary, args, { stdio: ['pipe', 'pipe', 'pipe'], shell: false });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let settled = false;
      const finish = (fn: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        fn();
      };
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        finish(() => reject(new LampError(ErrorCode.MODEL_LOAD_FAILED, `espeak-ng took longer than ${this.timeoutMs} ms`, { binary: this.binary })));
      }, this.timeoutMs);
      child.stdout.on('data', (b: Buffer) => out.push(b));
      child.stderr.on('data', (b: Buffer) => err.push(b));
      child.on('error', (e: NodeJS.ErrnoException) => {
        finish(() =>
          reject(
            e.code === 'ENOENT'
              ? new LampError(ErrorCode.MODEL_MISSING, 'espeak-ng is not installed', { binary: this.binary })
              : new LampError(ErrorCode.MODEL_LOAD_FAILED, `espeak-ng could not be started: ${e.message}`, { binary: this.binary }, { cause: e }),
          ),
        );
      });
      child.on('close', (code, signal) => {
        finish(() => {
          if (code === 0) resolve(Buffer.concat(out));
          else {
            const detail = Buffer.concat(err).toString('utf8').trim().slice(0, 300);
            reject(new LampError(ErrorCode.MODEL_LOAD_FAILED, `espeak-ng failed (${signal ?? `exit ${code}`})${detail ? `: ${detail}` : ''}`, { binary: this.binary }));
          }
        });
      });
      // A child that died before reading stdin gives EPIPE here; the 'close' handler reports it.
      child.stdin.on('error', () => undefined);
      child.stdin.end(text.replace(/\s+/g, ' ').trim() + '\n', 'utf8');
    });
  }
}
