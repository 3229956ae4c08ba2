import { type SoundMatch, type SoundProfile, compareSound, soundProfile } from './sound.js';

/**
 * Recitation checking: a deterministic, explainable comparison of what the child recited with
 * the expected text, character by character (Chinese) or word by word (English). Pure; no I/O.
 */

export type ErrorType = 'omission' | 'insertion' | 'order' | 'mispronounced' | 'wrong_word';

export interface Spot {
  /** 1-based index of the sentence in the expected text. */
  sentence: number;
  /** 1-based index of the character (or word) inside that sentence. */
  char: number;
  expected: string;
  actual: string;
  /** 第2句第3字 */
  position: string;
}

export interface RecitationError extends Spot {
  type: ErrorType;
}

export interface ScoreResult {
  accuracy: number;
  need_retry: boolean;
  errors: RecitationError[];
  tolerated: Spot[];
}

export const PASS_ACCURACY = 85;

interface Unit {
  text: string;
  sentence: number;
  char: number;
}

type Lang = 'zh' | 'en';

const HAN = /\p{Script=Han}/u;
const ZH_SENTENCE = /[，。！？；：、,.!?;:\n]/;
const EN_SENTENCE = /[,.!?;\n]/;
const DROP = /[\p{P}\p{S}\s]/u;

export function languageOf(text: string): Lang {
  return HAN.test(text) ? 'zh' : 'en';
}

/** Normalised units: NFKC (full/half width), lower case, no punctuation or spaces. */
export function unitsOf(text: string, lang: Lang): string[] {
  const norm = text.normalize('NFKC').toLowerCase();
  if (lang === 'en') return norm.replace(/['’]/g, '').match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...norm].filter((c) => !DROP.test(c));
}

/** The expected text as units with their sentence and position; empty sentences are skipped. */
export function expectedUnits(text: string, lang: Lang): Unit[] {
  const out: Unit[] = [];
  let sentence = 0;
  for (const part of text.normalize('NFKC').split(lang === 'zh' ? ZH_SENTENCE : EN_SENTENCE)) {
    const u = unitsOf(part, lang);
    if (u.length === 0) continue;
    sentence++;
    u.forEach((t, i) => out.push({ text: t, sentence, char: i + 1 }));
  }
  return out;
}

type Op =
  | { op: 'eq' | 'tol' | 'mis' | 'wrong'; e: number; r: number }
  | { op: 'del'; e: number }
  | { op: 'ins'; r: number };

const COST = { eq: 0, tol: 1, mis: 5, wrong: 10, del: 10, ins: 10 } as const;
const SUB: Record<SoundMatch, 'eq' | 'tol' | 'mis' | 'wrong'> = { equal: 'eq', tolerated: 'tol', mispronounced: 'mis', wrong: 'wrong' };

function subOp(e: string, r: string, lang: Lang): 'eq' | 'tol' | 'mis' | 'wrong' {
  if (e === r) return 'eq';
  return lang === 'zh' ? SUB[compareSound(e, r)] : 'wrong';
}

/**
 * Optimal edit alignment (weighted Levenshtein). Same-sound substitutions are cheap so the
 * alignment follows what the child said; a tie between two substitutions and a
 * deletion + insertion (a transposition) is broken towards deletion/insertion, which the order
 * detection then recognises.
 */
const CODES = ['eq', 'tol', 'mis', 'wrong'] as const;
const CODE_OF = { eq: 0, tol: 1, mis: 2, wrong: 3 } as const;

/** Substitution codes for every (expected, recited) pair of distinct units, computed once per pair. */
function pairTable(exp: readonly string[], rec: readonly string[], lang: Lang): { e: Int32Array; r: Int32Array; table: Int8Array; width: number } {
  const ids = (xs: readonly string[]): { idx: Int32Array; distinct: string[] } => {
    const map = new Map<string, number>();
    const idx = Int32Array.from(xs, (x) => {
      let id = map.get(x);
      if (id === undefined) map.set(x, (id = map.size));
      return id;
    });
    return { idx, distinct: [...map.keys()] };
  };
  const E = ids(exp);
  const R = ids(rec);
  const width = R.distinct.length;
  const table = new Int8Array(E.distinct.length * width).fill(CODE_OF.wrong);
  // Inverted indexes over the recited units' readings, so each expected unit only visits the
  // recited units that share a reading with it instead of every pair.
  const index = (pick: (p: SoundProfile) => number[]): Map<number, number[]> => {
    const m = new Map<number, number[]>();
    if (lang !== 'zh') return m;
    R.distinct.forEach((r, j) => {
      for (const key of new Set(pick(soundProfile(r)))) {
        const list = m.get(key);
        if (list) list.push(j);
        else m.set(key, [j]);
      }
    });
    return m;
  };
  const byToned = index((p) => p.toned);
  const bySyllable = index((p) => p.syllables);
  const byConfusable = index((p) => p.confusable);
  const rIds = new Map(R.distinct.map((r, j) => [r, j]));
  E.distinct.forEach((e, i) => {
    const row = i * width;
    if (lang === 'zh') {
      const p = soundProfile(e);
      for (const syl of p.syllables) {
        for (const j of bySyllable.get(syl) ?? []) table[row + j] = CODE_OF.mis;
        for (const j of byConfusable.get(syl) ?? []) table[row + j] = CODE_OF.mis;
      }
      for (const t of p.toned) for (const j of byToned.get(t) ?? []) table[row + j] = CODE_OF.tol;
    }
    const same = rIds.get(e);
    if (same !== undefined) table[row + same] = CODE_OF.eq;
  });
  return { e: E.idx, r: R.idx, table, width };
}

const DIAG = 0;
const UP = 1; // expected unit with nothing recited: omission
const LEFT = 2; // recited unit with no counterpart: insertion

function align(exp: readonly string[], rec: readonly string[], lang: Lang): Op[] {
  const n = exp.length;
  const m = rec.length;
  const w = m + 1;
  // Two rows of costs and one byte of direction per cell: the 600-character case stays in cache.
  let prev = new Int32Array(w);
  let cur = new Int32Array(w);
  const dir = new Uint8Array((n + 1) * w);
  const pt = pairTable(exp, rec, lang);
  const { table, r: rIdx, width } = pt;
  const costOf = Int32Array.of(COST.eq, COST.tol, COST.mis, COST.wrong);
  const DEL = COST.del;
  const INS = COST.ins;
  for (let j = 1; j <= m; j++) {
    prev[j] = j * INS;
    dir[j] = LEFT;
  }
  for (let i = 1; i <= n; i++) {
    cur[0] = i * DEL;
    const base = i * w;
    dir[base] = UP;
    const row = (pt.e[i - 1] as number) * width;
    let leftCost = i * DEL;
    for (let j = 1; j <= m; j++) {
      const code = table[row + (rIdx[j - 1] as number)] as number;
      const diag = (prev[j - 1] as number) + (costOf[code] as number);
      const up = (prev[j] as number) + DEL;
      const left = leftCost + INS;
      const best = diag < up ? (diag < left ? diag : left) : up < left ? up : left;
      // Preference on ties: a match, then omission, then insertion, then a substitution; so a
      // transposition comes out as omission + match + insertion, which order detection sees.
      const d = diag === best && code <= CODE_OF.tol ? DIAG : up === best ? UP : left === best ? LEFT : DIAG;
      cur[j] = best;
      leftCost = best;
      dir[base + j] = d;
    }
    const t = prev;
    prev = cur;
    cur = t;
  }
  const ops: Op[] = [];
  let i = n;
  let j = m;
  while (i > 0 || j > 0) {
    const d = dir[i * w + j];
    if (d === UP) {
      ops.push({ op: 'del', e: i - 1 });
      i--;
    } else if (d === LEFT) {
      ops.push({ op: 'ins', r: j - 1 });
      j--;
    } else {
      const code = pt.table[(pt.e[i - 1] as number) * pt.width + (pt.r[j - 1] as number)] as number;
      ops.push({ op: CODES[code] as 'eq' | 'tol' | 'mis' | 'wrong', e: i - 1, r: j - 1 });
      i--;
      j--;
    }
  }
  return ops.reverse();
}

function sameSound(a: string, b: string, lang: Lang): boolean {
  const s = subOp(a, b, lang);
  return s === 'eq' || s === 'tol';
}

function positionText(u: Unit, lang: Lang): string {
  return `第${u.sentence}句第${u.char}${lang === 'zh' ? '字' : '词'}`;
}

/** Checks a recitation against the expected text. */
export function scoreRecitation(expectedText: string, recitedText: string): ScoreResult {
  const lang = languageOf(expectedText);
  const exp = expectedUnits(expectedText, lang);
  if (exp.length === 0) throw new Error('the expected text has nothing to recite');
  const rec = unitsOf(recitedText, lang);
  const join = (xs: string[]): string => xs.join(lang === 'en' ? ' ' : '');
  const ops = align(
    exp.map((u) => u.text),
    rec,
    lang,
  );

  const errors: RecitationError[] = [];
  const tolerated: Spot[] = [];
  const spot = (u: Unit, expected: string, actual: string): Spot => ({ sentence: u.sentence, char: u.char, expected, actual, position: positionText(u, lang) });
  const consumed = new Set<number>(); // op indexes already reported as part of an order error

  // Order, case 1: two neighbours transposed (del X, match Y, ins X — or the mirror).
  for (let k = 0; k + 2 < ops.length; k++) {
    const a = ops[k] as Op;
    const mid = ops[k + 1] as Op;
    const b = ops[k + 2] as Op;
    if ((mid.op !== 'eq' && mid.op !== 'tol') || consumed.has(k) || consumed.has(k + 2)) continue;
    let eIdx: number | undefined;
    if (a.op === 'del' && b.op === 'ins' && sameSound(exp[a.e]!.text, rec[b.r]!, lang)) eIdx = a.e;
    if (a.op === 'ins' && b.op === 'del' && sameSound(exp[b.e]!.text, rec[a.r]!, lang)) eIdx = mid.e;
    if (eIdx === undefined) continue;
    const first = exp[eIdx] as Unit;
    const pairExpected = join([exp[eIdx]!.text, exp[eIdx + 1]!.text]);
    const pairActual = join(a.op === 'del' ? [rec[mid.r]!, rec[(b as { r: number }).r]!] : [rec[a.r]!, rec[mid.r]!]);
    errors.push({ type: 'order', ...spot(first, pairExpected, pairActual) });
    consumed.add(k).add(k + 2);
  }

  // Order, case 2: a run of ≥ 2 omitted units that was recited elsewhere (e.g. swapped lines).
  const runs = (kind: 'del' | 'ins'): number[][] => {
    const out: number[][] = [];
    let cur: number[] = [];
    ops.forEach((o, k) => {
      if (o.op === kind && !consumed.has(k)) cur.push(k);
      else if (o.op !== kind) {
        if (cur.length) out.push(cur);
        cur = [];
      }
    });
    if (cur.length) out.push(cur);
    return out;
  };
  for (;;) {
    let best: { d: number[]; i: number[]; len: number } | undefined;
    for (const d of runs('del')) {
      for (const ins of runs('ins')) {
        // longest common run of sound-equal units
        for (let x = 0; x < d.length; x++) {
          for (let y = 0; y < ins.length; y++) {
            let len = 0;
            while (x + len < d.length && y + len < ins.length && sameSound(exp[(ops[d[x + len] as number] as { e: number }).e]!.text, rec[(ops[ins[y + len] as number] as { r: number }).r]!, lang)) len++;
            if (len >= 2 && (!best || len > best.len)) best = { d: d.slice(x, x + len), i: ins.slice(y, y + len), len };
          }
        }
      }
    }
    if (!best) break;
    const eUnits = best.d.map((k) => exp[(ops[k] as { e: number }).e] as Unit);
    const rUnits = best.i.map((k) => rec[(ops[k] as { r: number }).r] as string);
    errors.push({ type: 'order', ...spot(eUnits[0] as Unit, join(eUnits.map((u) => u.text)), join(rUnits)) });
    for (const k of [...best.d, ...best.i]) consumed.add(k);
  }

  // Everything else, in order; consecutive omissions within a sentence and consecutive
  // insertions are one error each.
  let correct = 0;
  const nextExpected = (k: number): Unit => {
    for (let x = k; x < ops.length; x++) {
      const o = ops[x] as Op;
      if (o.op !== 'ins') return exp[o.e] as Unit;
    }
    return exp[exp.length - 1] as Unit;
  };
  for (let k = 0; k < ops.length; k++) {
    const o = ops[k] as Op;
    if (consumed.has(k)) continue;
    if (o.op === 'eq') correct++;
    else if (o.op === 'tol') {
      correct++;
      tolerated.push(spot(exp[o.e] as Unit, exp[o.e]!.text, rec[o.r] as string));
    } else if (o.op === 'mis' || o.op === 'wrong') {
      errors.push({ type: o.op === 'mis' ? 'mispronounced' : 'wrong_word', ...spot(exp[o.e] as Unit, exp[o.e]!.text, rec[o.r] as string) });
    } else if (o.op === 'del') {
      const first = exp[o.e] as Unit;
      const texts = [first.text];
      while (k + 1 < ops.length && !consumed.has(k + 1) && (ops[k + 1] as Op).op === 'del' && exp[(ops[k + 1] as { e: number }).e]!.sentence === first.sentence) {
        k++;
        texts.push(exp[(ops[k] as { e: number }).e]!.text);
      }
      errors.push({ type: 'omission', ...spot(first, join(texts), '') });
    } else {
      const texts = [rec[o.r] as string];
      while (k + 1 < ops.length && !consumed.has(k + 1) && (ops[k + 1] as Op).op === 'ins') {
        k++;
        texts.push(rec[(ops[k] as { r: number }).r] as string);
      }
      errors.push({ type: 'insertion', ...spot(nextExpected(k + 1), '', join(texts)) });
    }
  }

  errors.sort((a, b) => a.sentence - b.sentence || a.char - b.char);
  const accuracy = Math.round((100 * correct) / exp.length);
  return { accuracy, need_retry: accuracy < PASS_ACCURACY, errors, tolerated };
}
