import type { Pcm } from '../../drivers/wav.js';

export type TtsLang = 'zh' | 'en';

export interface SynthesizeOptions {
  /** Which voice to use; detected from the text when not given. */
  lang?: TtsLang;
}

/** Text to mono 16-bit PCM at the engine's own rate (the speaker driver resamples if it must). */
export interface TextToSpeech {
  readonly engine: 'sherpa' | 'espeak-ng';
  /** Identifies the voice and its settings, for cache keys (different voice, different audio). */
  readonly voice?: string;
  synthesize(text: string, opts?: SynthesizeOptions): Promise<Pcm>;
}

const HAN = /\p{Script=Han}/gu;
const LATIN_WORD = /[A-Za-z]+(?:'[A-Za-z]+)?/g;

/**
 * Chinese or English, by what the text is mostly made of: a Han character weighs as much as an
 * English word, so "今天学 apple 这个词" is Chinese and "Say apple" is English. Text with
 * neither (digits, punctuation) is read as Chinese, the children's language.
 */
export function detectLang(text: string): TtsLang {
  const han = text.match(HAN)?.length ?? 0;
  const words = text.match(LATIN_WORD)?.length ?? 0;
  if (han === 0 && words === 0) return 'zh';
  return han >= words ? 'zh' : 'en';
}

export interface SplitOptions {
  /** Pieces with fewer spoken characters are joined to a neighbour. */
  minChars?: number;
  /** Longer pieces are cut again at commas, so the first audio is not held up by one long sentence. */
  maxChars?: number;
}

/**
 * Cuts text into sentences for pipelined synthesis: after 。！？；… and . ! ? ; (a '.' only
 * before a space or the end, so 3.14 stays whole) and at line breaks. Each piece keeps its
 * punctuation (it shapes the intonation). Short pieces ("好。", "Yes!") are joined to the next so
 * that every piece is worth a synthesis call; very long ones are cut at commas.
 */
export function splitSentences(text: string, opts: SplitOptions = {}): string[] {
  const minChars = opts.minChars ?? 4;
  const maxChars = opts.maxChars ?? 60;
  const raw: string[] = [];
  const chars = [...text];
  let cur = '';
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] as string;
    cur += ch;
    const next = chars[i + 1];
    const ends = STOPS.has(ch) || ch === '\n' || (ch === '.' && (next === undefined || /\s/.test(next)));
    if (!ends) continue;
    // Runs of terminators ("?!", "……") and closing quotes stay with their sentence.
    while (chars[i + 1] !== undefined && (STOPS.has(chars[i + 1] as string) || CLOSERS.has(chars[i + 1] as string))) cur += chars[++i];
    raw.push(cur);
    cur = '';
  }
  raw.push(cur);
  const cut = raw
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter((p) => p.length > 0)
    .flatMap((p) => (spoken(p) > maxChars ? cutAtCommas(p, maxChars) : [p]));
  const out: string[] = [];
  for (const piece of cut) {
    const prev = out[out.length - 1];
    if (prev !== undefined && spoken(prev) < minChars) out[out.length - 1] = join(prev, piece);
    else out.push(piece);
  }
  // A short last piece joins the one before it.
  if (out.length >= 2 && spoken(out[out.length - 1] as string) < minChars) {
    const last = out.pop() as string;
    out[out.length - 1] = join(out[out.length - 1] as string, last);
  }
  return out;
}

const STOPS = new Set(['。', '！', '？', '；', '…', '!', '?', ';']);
const CLOSERS = new Set(['”', '’', '」', '』', '）', ')', '"', "'"]);

/** Characters that are pronounced: letters and digits of any script, not punctuation or spaces. */
function spoken(s: string): number {
  return s.match(/[\p{L}\p{N}]/gu)?.length ?? 0;
}

function join(a: string, b: string): string {
  // No space between Chinese pieces; a space after Latin text.
  return /[\p{Script=Han}\p{P}]$/u.test(a) && /^[\p{Script=Han}\p{P}]/u.test(b) ? a + b : `${a} ${b}`;
}

function cutAtCommas(piece: string, maxChars: number): string[] {
  const parts = piece.match(/[^，,、：:]+[，,、：:]*/gu) ?? [piece];
  const out: string[] = [];
  let cur = '';
  for (const p of parts) {
    if (cur && spoken(cur) + spoken(p) > maxChars) {
      out.push(cur.trim());
      cur = '';
    }
    cur += p;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}
