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

export interface Unit {
  text: string;
  sentence: number;
  char: number;
  /** Where the unit stands in the text as written: 0-based line and character column, and its length. */
  line: number;
  col: number;
  len: number;
}

type Lang = 'zh' | 'en';

const HAN = /\p{Script=Han}/u;
const ZH_SENTENCE = /[，。！？；：、,.!?;:]/;
const EN_SENTENCE = /[,.!?;]/;
const DROP = /[\p{P}\p{S}\s]/u;

export function languageOf(text: string): Lang {
  return HAN.test(text) ? 'zh' : 'en';
}

const DIGITS = '〇一二三四五六七八九';

/** A number as it is read: 3000 → 三千, 23 → 二十三, 105 → 一百零五. */
function numberReading(digits: string): string {
  const n = Number(digits);
  if (!Number.isSafeInteger(n) || n >= 100_000_000 || digits.length > 1 && digits.startsWith('0')) return [...digits].map((d) => DIGITS.charAt(Number(d))).join('');
  if (n === 0) return '零';
  const units = ['', '十', '百', '千'];
  const four = (x: number): string => {
    let out = '';
    let zero = false;
    for (let p = 3; p >= 0; p--) {
      const d = Math.floor(x / 10 ** p) % 10;
      if (d === 0) {
        zero = out.length > 0;
        continue;
      }
      if (zero) out += '零';
      zero = false;
      out += (d === 1 && p === 1 && out.length === 0 ? '' : DIGITS.charAt(d)) + (units[p] ?? '');
    }
    return out;
  };
  return n >= 10_000 ? four(Math.floor(n / 10_000)) + '万' + (n % 10_000 < 1000 && n % 10_000 > 0 ? '零' : '') + four(n % 10_000) : four(n);
}

/**
 * Digits in a Chinese recitation are what the recogniser wrote for spoken numbers: 飞流直下3000尺
 * is 三千, 1去23里 is 一去二三里. Each digit run becomes the reading (三千) or the digit-by-digit
 * reading (二三), whichever uses more characters of the expected text.
 */
export function digitsToChinese(text: string, expected: ReadonlySet<string>): string {
  return text.replace(/[0-9０-９]+/g, (raw) => {
    const digits = raw.normalize('NFKC');
    const reading = numberReading(digits);
    const each = [...digits].map((d) => DIGITS.charAt(Number(d))).join('');
    const score = (s: string): number => [...s].filter((c) => expected.has(c)).length / [...s].length;
    return score(each) > score(reading) ? each : reading;
  });
}

/** Normalised units: NFKC (full/half width), lower case, no punctuation or spaces. */
export function unitsOf(text: string, lang: Lang): string[] {
  const norm = text.normalize('NFKC').toLowerCase();
  if (lang === 'en') return norm.replace(/['’]/g, '').match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...norm].filter((c) => !DROP.test(c));
}

/**
 * The expected text as units, each with its sentence and position and where it is written
 * (line and column), so the projector can mark exactly the characters the checker means.
 * Sentences end at punctuation and at line ends; empty ones are skipped.
 */
export function expectedUnits(text: string, lang: Lang): Unit[] {
  const out: Unit[] = [];
  let sentence = 1;
  let char = 0;
  const close = (): void => {
    if (char > 0) {
      sentence++;
      char = 0;
    }
  };
  text.split('\n').forEach((lineText, line) => {
    const chars = [...lineText];
    if (lang === 'zh') {
      chars.forEach((c, col) => {
        const n = c.normalize('NFKC').toLowerCase();
        if (ZH_SENTENCE.test(n)) return close();
        for (const u of [...n]) if (!DROP.test(u)) out.push({ text: u, sentence, char: ++char, line, col, len: 1 });
      });
    } else {
      let col = 0;
      while (col < chars.length) {
        const c = (chars[col] as string).normalize('NFKC');
        if (EN_SENTENCE.test(c)) {
          close();
          col++;
        } else if (/[\p{L}\p{N}'’]/u.test(c)) {
          let end = col;
          while (end < chars.length && /[\p{L}\p{N}'’]/u.test(chars[end] as string)) end++;
          const word = chars.slice(col, end).join('').normalize('NFKC').toLowerCase().replace(/['’]/g, '');
          if (word) out.push({ text: word, sentence, char: ++char, line, col, len: end - col });
          col = end;
        } else col++;
      }
    }
    close();
  });
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

/**
 * Expected sentences (two units or more) that occur word for word in the recitation, in an
 * order that the longest in-order chain (longest increasing subsequence) does not explain.
 * Neighbouring moved sentences recited together form one block.
 */
function movedSentences(exp: readonly Unit[], rec: readonly string[]): { exp: Set<number>; rec: Set<number>; blocks: { e: number[]; r: number[] }[] } {
  const sentences = new Map<number, number[]>();
  exp.forEach((u, i) => {
    const list = sentences.get(u.sentence);
    if (list) list.push(i);
    else sentences.set(u.sentence, [i]);
  });
  const claimed = new Uint8Array(rec.length);
  const found: { s: number; e: number[]; at: number }[] = [];
  for (const [s, idx] of [...sentences].filter(([, v]) => v.length >= 2).sort((a, b) => b[1].length - a[1].length)) {
    const L = idx.length;
    for (let p = 0; p + L <= rec.length; p++) {
      let ok = true;
      for (let q = 0; q < L && ok; q++) ok = claimed[p + q] === 0 && rec[p + q] === (exp[idx[q] as number] as Unit).text;
      if (!ok) continue;
      claimed.fill(1, p, p + L);
      found.push({ s, e: idx, at: p });
      break;
    }
  }
  found.sort((a, b) => a.at - b.at);
  // longest increasing subsequence of sentence numbers, in recited order
  const prevOf = new Array<number>(found.length).fill(-1);
  const tails: number[] = [];
  found.forEach((f, i) => {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((found[tails[mid] as number] as { s: number }).s < f.s) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prevOf[i] = tails[lo - 1] as number;
    tails[lo] = i;
  });
  const inOrder = new Set<number>();
  for (let i = tails[tails.length - 1] ?? -1; i >= 0; i = prevOf[i] as number) inOrder.add(i);
  const out = { exp: new Set<number>(), rec: new Set<number>(), blocks: [] as { e: number[]; r: number[] }[] };
  let last: { s: number; end: number; block: { e: number[]; r: number[] } } | undefined;
  found.forEach((f, i) => {
    if (inOrder.has(i)) {
      last = undefined;
      return;
    }
    const r = f.e.map((_, q) => f.at + q);
    f.e.forEach((x) => out.exp.add(x));
    r.forEach((x) => out.rec.add(x));
    if (last && last.s + 1 === f.s && last.end === f.at) {
      last.block.e.push(...f.e);
      last.block.r.push(...r);
    } else {
      const block = { e: [...f.e], r };
      out.blocks.push(block);
      last = { s: f.s, end: f.at + f.e.length, block };
      return;
    }
    last = { s: f.s, end: f.at + f.e.length, block: last.block };
  });
  return out;
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
  const rec = unitsOf(lang === 'zh' ? digitsToChinese(recitedText, new Set(exp.map((u) => u.text))) : recitedText, lang);
  const join = (xs: string[]): string => xs.join(lang === 'en' ? ' ' : '');
  const errors: RecitationError[] = [];
  const tolerated: Spot[] = [];
  const spot = (u: Unit, expected: string, actual: string): Spot => ({ sentence: u.sentence, char: u.char, expected, actual, position: positionText(u, lang) });

  // Order, whole sentences: lines recited word for word but in another place (two lines swapped,
  // a text's halves swapped) are found before the alignment, reported once per moved block, and
  // left out of it, so they do not turn into a wall of substitutions.
  const moved = movedSentences(exp, rec);
  for (const block of moved.blocks) {
    const units = block.e.map((i) => exp[i] as Unit);
    errors.push({ type: 'order', ...spot(units[0] as Unit, join(units.map((u) => u.text)), join(block.r.map((j) => rec[j] as string))) });
  }
  const expIdx = exp.map((_, i) => i).filter((i) => !moved.exp.has(i));
  const recIdx = rec.map((_, j) => j).filter((j) => !moved.rec.has(j));
  const ops = align(
    expIdx.map((i) => (exp[i] as Unit).text),
    recIdx.map((j) => rec[j] as string),
    lang,
  ).map((o): Op => ('e' in o && 'r' in o ? { ...o, e: expIdx[o.e] as number, r: recIdx[o.r] as number } : 'e' in o ? { op: 'del', e: expIdx[o.e] as number } : { op: 'ins', r: recIdx[o.r] as number }));

  const consumed = new Set<number>(); // op indexes already reported as part of an order error

  // Order, case 1: two neighbours transposed — as two crossed substitutions (山上 for 上山) …
  const isSub = (o: Op): o is Op & { e: number; r: number } => o.op === 'mis' || o.op === 'wrong';
  for (let k = 0; k + 1 < ops.length; k++) {
    const a = ops[k] as Op;
    const b = ops[k + 1] as Op;
    if (!isSub(a) || !isSub(b) || consumed.has(k)) continue;
    if (sameSound(exp[a.e]!.text, rec[b.r]!, lang) && sameSound(exp[b.e]!.text, rec[a.r]!, lang)) {
      errors.push({ type: 'order', ...spot(exp[a.e] as Unit, join([exp[a.e]!.text, exp[b.e]!.text]), join([rec[a.r]!, rec[b.r]!])) });
      consumed.add(k).add(k + 1);
    }
  }
  // … or as an omission and an insertion around a match (del X, match Y, ins X, or the mirror).
  for (let k = 0; k + 2 < ops.length; k++) {
    const a = ops[k] as Op;
    const mid = ops[k + 1] as Op;
    const b = ops[k + 2] as Op;
    if ((mid.op !== 'eq' && mid.op !== 'tol') || consumed.has(k) || consumed.has(k + 1) || consumed.has(k + 2)) continue;
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

  // Order, case 2: omitted units recited elsewhere — a run of two or more anywhere, or a single
  // unit moved inside its own sentence (疑是霜地上).
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
  /** The sentence an op belongs to: its own expected unit's, or for an insertion the next one's. */
  const sentenceAt = (k: number): number => {
    for (let x = k; x < ops.length; x++) {
      const o = ops[x] as Op;
      if (o.op !== 'ins') return (exp[o.e] as Unit).sentence;
    }
    return (exp[exp.length - 1] as Unit).sentence;
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
            const minLen = sentenceAt(d[x] as number) === sentenceAt(ins[y] as number) ? 1 : 2;
            if (len >= minLen && (!best || len > best.len)) best = { d: d.slice(x, x + len), i: ins.slice(y, y + len), len };
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
  /** Where an insertion stands: before the next expected unit, or just after the last one. */
  const nextExpected = (k: number): Unit => {
    for (let x = k; x < ops.length; x++) {
      const o = ops[x] as Op;
      if (o.op !== 'ins') return exp[o.e] as Unit;
    }
    const last = exp[exp.length - 1] as Unit;
    return { ...last, char: last.char + 1 };
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
