import { pinyin } from 'pinyin-pro';

/**
 * How a recited character compares with the expected one by sound. The recited text is usually
 * an ASR transcript, so a character with the same reading is what the child said correctly.
 */
export type SoundMatch = 'equal' | 'tolerated' | 'mispronounced' | 'wrong';

interface Reading {
  syllable: string;
  tone: string;
  initial: string;
  final: string;
}

const INITIALS = ['zh', 'ch', 'sh', 'b', 'p', 'm', 'f', 'd', 't', 'n', 'l', 'g', 'k', 'h', 'j', 'q', 'x', 'r', 'z', 'c', 's', 'y', 'w'];
const CONFUSED_INITIALS = [['zh', 'z'], ['ch', 'c'], ['sh', 's'], ['n', 'l'], ['f', 'h'], ['r', 'l']];
const CONFUSED_FINALS = [['ang', 'an'], ['eng', 'en'], ['ing', 'in'], ['iang', 'ian'], ['uang', 'uan']];
const HAN = /\p{Script=Han}/u;

const readingCache = new Map<string, Reading[]>();

/** Every reading of a character (pinyin-pro lists all of a polyphone's), cached. */
export function readings(ch: string): Reading[] {
  let r = readingCache.get(ch);
  if (r) return r;
  r = [];
  if (HAN.test(ch)) {
    for (const py of pinyin(ch, { multiple: true, type: 'array', toneType: 'num', v: true })) {
      const m = /^([a-z]+)(\d?)$/.exec(py);
      if (!m) continue;
      const syllable = m[1] as string;
      const initial = INITIALS.find((i) => syllable.startsWith(i) && syllable.length > i.length) ?? '';
      r.push({ syllable, tone: m[2] || '0', initial, final: syllable.slice(initial.length) });
    }
  }
  readingCache.set(ch, r);
  return r;
}

function pairIn(pairs: string[][], a: string, b: string): boolean {
  return pairs.some(([x, y]) => (a === x && b === y) || (a === y && b === x));
}

/** Syllables that differ only by a commonly confused initial or final (tone not considered). */
function confusable(a: Reading, b: Reading): boolean {
  if (a.final === b.final && pairIn(CONFUSED_INITIALS, a.initial, b.initial)) return true;
  return a.initial === b.initial && pairIn(CONFUSED_FINALS, a.final, b.final);
}

const pairCache = new Map<string, SoundMatch>();

export function compareSound(expected: string, actual: string): SoundMatch {
  if (expected === actual) return 'equal';
  const key = expected + '\u0000' + actual;
  const cached = pairCache.get(key);
  if (cached) return cached;
  const re = readings(expected);
  const ra = readings(actual);
  let result: SoundMatch = 'wrong';
  if (re.some((a) => ra.some((b) => a.syllable === b.syllable && a.tone === b.tone))) result = 'tolerated';
  else if (re.some((a) => ra.some((b) => a.syllable === b.syllable || confusable(a, b)))) result = 'mispronounced';
  if (pairCache.size > 200_000) pairCache.clear();
  pairCache.set(key, result);
  return result;
}
