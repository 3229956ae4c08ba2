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

/** A character's readings as small integers, for comparing thousands of pairs quickly. */
export interface SoundProfile {
  /** syllable id × 8 + tone */
  toned: number[];
  syllables: number[];
  /** ids of syllables that differ from one of this character's by a confused initial or final */
  confusable: number[];
}

const syllableIds = new Map<string, number>();
const idOf = (syllable: string): number => {
  let id = syllableIds.get(syllable);
  if (id === undefined) syllableIds.set(syllable, (id = syllableIds.size));
  return id;
};

function confusableSyllables(r: Reading): string[] {
  const out: string[] = [];
  for (const [a, b] of CONFUSED_INITIALS) {
    if (r.initial === a) out.push((b as string) + r.final);
    if (r.initial === b) out.push((a as string) + r.final);
  }
  for (const [a, b] of CONFUSED_FINALS) {
    if (r.final === a) out.push(r.initial + (b as string));
    if (r.final === b) out.push(r.initial + (a as string));
  }
  return out;
}

const profileCache = new Map<string, SoundProfile>();

export function soundProfile(ch: string): SoundProfile {
  let p = profileCache.get(ch);
  if (p) return p;
  const rs = readings(ch);
  p = {
    toned: rs.map((r) => idOf(r.syllable) * 8 + Number(r.tone)),
    syllables: rs.map((r) => idOf(r.syllable)),
    confusable: rs.flatMap((r) => confusableSyllables(r).map(idOf)),
  };
  profileCache.set(ch, p);
  return p;
}

/** Compares two different characters by their profiles (see compareSound). */
export function compareProfiles(e: SoundProfile, a: SoundProfile): Exclude<SoundMatch, 'equal'> {
  if (e.toned.some((x) => a.toned.includes(x))) return 'tolerated';
  if (e.syllables.some((x) => a.syllables.includes(x) || a.confusable.includes(x))) return 'mispronounced';
  return 'wrong';
}

export function compareSound(expected: string, actual: string): SoundMatch {
  if (expected === actual) return 'equal';
  return compareProfiles(soundProfile(expected), soundProfile(actual));
}
