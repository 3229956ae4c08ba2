/**
 * The problems on one exercise page, with the child's answers and the truth about them.
 * Every number comes from the page's seeded generator; nothing here touches a browser or an image.
 */
import { Rng } from './rng.js';

export type Kind = 'arithmetic' | 'fill_blank' | 'compare' | 'remainder' | 'non_arithmetic';
export type Verdict = 'correct' | 'incorrect' | 'uncertain';

/** Where the child writes: after "=", inside printed brackets, inside a printed circle, on an answer line, in 田字格 boxes. */
export type Slot = 'end' | 'paren' | 'circle' | 'line' | 'boxes';

export interface Problem {
  kind: Kind;
  /** Ground-truth spelling: no spaces, the lamp's own characters (× ÷ ○ ……), a blank as "()". */
  question: string;
  /** Printed text before and after the answer slot. */
  before: string;
  after: string;
  slot: Slot;
  correct: string;
  student: string;
  blank: boolean;
  verdict: Verdict;
  /** A full-width row (word problem, 看拼音写词语) rather than a cell of the grid. */
  wide: boolean;
  /** For 田字格: how many boxes. */
  boxes?: number;
}

export type Grade = 1 | 2 | 3;

interface Draft {
  kind: Kind;
  question: string;
  before: string;
  after: string;
  slot: Slot;
  correct: string;
  /** Plausible wrong answers a child of this age writes for this problem. */
  wrong: (rng: Rng) => string;
  wide?: boolean;
  boxes?: number;
}

// ---------- plausible mistakes ----------

function digitsSwapped(n: number): number | null {
  if (n < 10 || n > 99) return null;
  const s = String(n);
  if (s[0] === s[1] || s[1] === '0') return null;
  return Number(`${s[1]}${s[0]}`);
}

/** a+b written without carrying the ten: 38+45 → 73. */
function forgotCarry(a: number, b: number): number | null {
  if ((a % 10) + (b % 10) < 10) return null;
  return (Math.floor(a / 10) + Math.floor(b / 10)) * 10 + (((a % 10) + (b % 10)) % 10);
}

/** a−b with the smaller ones digit taken from the larger instead of borrowing: 52−17 → 45. */
function forgotBorrow(a: number, b: number): number | null {
  if (a % 10 >= b % 10) return null;
  const tens = Math.floor(a / 10) - Math.floor(b / 10);
  if (tens < 0) return null;
  return tens * 10 + ((b % 10) - (a % 10));
}

/** Picks one of the candidate wrong answers that is really wrong; falls back to off-by-one. */
function wrongInt(rng: Rng, correct: number, candidates: (number | null)[]): string {
  const ok = candidates.filter((c): c is number => c !== null && c >= 0 && c !== correct);
  if (ok.length > 0 && rng.chance(0.75)) return String(rng.pick(ok));
  const off = correct === 0 ? 1 : correct + rng.pick([-1, 1]);
  return String(off);
}

// ---------- arithmetic ----------

function addition(rng: Rng, grade: Grade): Draft {
  const max = grade === 1 ? rng.pick([20, 100]) : 100;
  const a = rng.int(max === 20 ? 2 : 11, max === 20 ? 15 : 79);
  const b = rng.int(2, max - a);
  const c = a + b;
  return arith(`${a}+${b}=`, c, (r) => wrongInt(r, c, [forgotCarry(a, b), digitsSwapped(c), c + 10, c - 10]));
}

function subtraction(rng: Rng, grade: Grade): Draft {
  const a = grade === 1 && rng.chance(0.5) ? rng.int(11, 20) : rng.int(21, 99);
  const b = rng.int(2, a - 1);
  const c = a - b;
  return arith(`${a}-${b}=`, c, (r) => wrongInt(r, c, [forgotBorrow(a, b), digitsSwapped(c), c + 10]));
}

function multiplication(rng: Rng): Draft {
  const a = rng.int(2, 9);
  const b = rng.int(1, 9);
  const c = a * b;
  return arith(`${a}×${b}=`, c, (r) => wrongInt(r, c, [(a - 1) * b, (a + 1) * b, a * (b + 1), digitsSwapped(c), a + b]));
}

function division(rng: Rng): Draft {
  const b = rng.int(2, 9);
  const q = rng.int(1, 9);
  const a = b * q;
  return arith(`${a}÷${b}=`, q, (r) => wrongInt(r, q, [q + 1, q - 1, a - b]));
}

/** Two steps, with brackets or with × ÷ binding first; every intermediate stays within 0..100. */
function mixed(rng: Rng): Draft {
  for (;;) {
    const shape = rng.int(0, 6);
    const n = () => rng.int(2, 60);
    const d = () => rng.int(2, 9);
    let q = '';
    let v = -1;
    let wrong: number | null = null;
    if (shape === 0) {
      const [a, b, c] = [n(), rng.int(2, 30), rng.int(2, 30)];
      const s1 = rng.chance(0.5) ? '+' : '-';
      const s2 = rng.chance(0.5) ? '+' : '-';
      const x = s1 === '+' ? a + b : a - b;
      v = s2 === '+' ? x + c : x - c;
      q = `(${a}${s1}${b})${s2}${c}=`;
      if (x < 0 || x > 100) continue;
    } else if (shape === 1) {
      const [a, b, c] = [rng.int(20, 90), rng.int(2, 40), rng.int(2, 30)];
      const s = rng.chance(0.5) ? '+' : '-';
      const inner = s === '+' ? b + c : b - c;
      v = a - inner;
      q = `${a}-(${b}${s}${c})=`;
      wrong = s === '+' ? a - b + c : a - b - c; // dropped the brackets
      if (inner < 0) continue;
    } else if (shape === 2) {
      const [a, b, c] = [d(), d(), rng.int(2, 40)];
      const s = rng.chance(0.5) ? '+' : '-';
      v = s === '+' ? a * b + c : a * b - c;
      q = `${a}×${b}${s}${c}=`;
    } else if (shape === 3) {
      const [a, b, c] = [rng.int(2, 40), d(), d()];
      v = a + b * c;
      q = `${a}+${b}×${c}=`;
      wrong = (a + b) * c; // worked left to right
    } else if (shape === 4) {
      const [b, quo, c] = [d(), d(), rng.int(2, 30)];
      q = `${b * quo}÷${b}+${c}=`;
      v = quo + c;
    } else if (shape === 5) {
      const c = d();
      const quo = d();
      const total = c * quo;
      const a = rng.int(1, total - 1);
      v = quo;
      q = `(${a}+${total - a})÷${c}=`;
    } else {
      const c = d();
      const a = rng.int(12, 40);
      const b = rng.int(2, a - 3);
      v = c * (a - b);
      q = `${c}×(${a}-${b})=`;
      wrong = c * a - b; // multiplied only the first number
    }
    if (v < 0 || v > 100) continue;
    const val = v;
    const w = wrong;
    return arith(q, val, (r) => wrongInt(r, val, [w, digitsSwapped(val), val + 10, val - 10]));
  }
}

function tenths(t: number): string {
  const s = (t / 10).toFixed(1);
  return s.endsWith('.0') ? s.slice(0, -2) : s;
}

function decimals(rng: Rng): Draft {
  const add = rng.chance(0.6);
  const a = add ? rng.int(1, 15) : rng.int(5, 25);
  const b = add ? rng.int(1, 9) : rng.int(1, Math.min(9, a - 1));
  const c = add ? a + b : a - b;
  const q = `${tenths(a)}${add ? '+' : '-'}${tenths(b)}=`;
  return {
    kind: 'arithmetic', question: q, before: q, after: '', slot: 'end', correct: tenths(c),
    // forgot the decimal point, or off by one tenth
    wrong: (r) => (r.chance(0.5) && c % 10 !== 0 && c < 10 ? String(c) : tenths(c + r.pick([-1, 1]))),
  };
}

function fractions(rng: Rng): Draft {
  const den = rng.int(3, 9);
  if (rng.chance(0.7)) {
    const a = rng.int(1, den - 2);
    const b = rng.int(1, den - 1 - a);
    const q = `${a}/${den}+${b}/${den}=`;
    return {
      kind: 'arithmetic', question: q, before: q, after: '', slot: 'end', correct: `${a + b}/${den}`,
      wrong: (r) => (r.chance(0.7) ? `${a + b}/${den * 2}` : `${a + b + 1}/${den}`), // added the denominators too
    };
  }
  const a = rng.int(1, den - 1);
  const q = `1-${a}/${den}=`;
  return {
    kind: 'arithmetic', question: q, before: q, after: '', slot: 'end', correct: `${den - a}/${den}`,
    wrong: (r) => (r.chance(0.6) ? `${a}/${den}` : `${den - a + 1}/${den}`),
  };
}

function arith(q: string, value: number, wrong: (r: Rng) => string): Draft {
  return { kind: 'arithmetic', question: q, before: q, after: '', slot: 'end', correct: String(value), wrong };
}

// ---------- fill in the blank, compare, remainder ----------

function fillBlank(rng: Rng, grade: Grade): Draft {
  const shape = rng.int(0, grade === 1 ? 3 : 6);
  let before = '';
  let after = '';
  let x = 0;
  let wrongs: (number | null)[] = [];
  if (shape === 0) {
    const a = rng.pick([10, 20, 30, 40, 50, rng.int(11, 60)]);
    x = rng.int(2, 99 - a);
    before = `${a}+(`; after = `)=${a + x}`;
    wrongs = [2 * a + x, x + 1, x - 1]; // added instead of subtracting
  } else if (shape === 1) {
    const b = rng.int(2, 40);
    x = rng.int(2, 99 - b);
    before = '('; after = `)+${b}=${x + b}`;
    wrongs = [x + 2 * b, x + 10, x - 1];
  } else if (shape === 2) {
    const a = rng.int(20, 99);
    x = rng.int(2, a - 2);
    before = `${a}-(`; after = `)=${a - x}`;
    wrongs = [2 * a - x, x + 1, x - 10];
  } else if (shape === 3) {
    const b = rng.int(2, 40);
    x = rng.int(b + 2, 99);
    before = '('; after = `)-${b}=${x - b}`;
    wrongs = [x - 2 * b, x + 1, x - 1];
  } else if (shape === 4) {
    const a = rng.int(2, 9);
    x = rng.int(2, 9);
    before = `${a}×(`; after = `)=${a * x}`;
    wrongs = [x + 1, x - 1, a * x - a];
  } else if (shape === 5) {
    const b = rng.int(2, 9);
    x = rng.int(2, 9);
    before = '('; after = `)×${b}=${x * b}`;
    wrongs = [x + 1, x - 1];
  } else {
    const b = rng.int(2, 9);
    const quo = rng.int(2, 9);
    x = b * quo;
    before = '('; after = `)÷${b}=${quo}`;
    wrongs = [quo * (b + 1), b + quo, x + b];
  }
  const val = x;
  return { kind: 'fill_blank', question: before + after, before, after, slot: 'paren', correct: String(val), wrong: (r) => wrongInt(r, val, wrongs) };
}

function cmp(a: number, b: number): string {
  return a > b ? '>' : a < b ? '<' : '=';
}

function compare(rng: Rng, grade: Grade): Draft {
  let left: string;
  let right: string;
  let lv: number;
  let rv: number;
  const shape = rng.int(0, grade === 1 ? 1 : 3);
  if (shape === 0) {
    lv = rng.int(10, 99);
    rv = rng.chance(0.3) ? Number(String(lv).split('').reverse().join('')) || lv + 1 : rng.int(10, 99);
    left = String(lv); right = String(rv);
  } else if (shape === 1) {
    const a = rng.int(5, 60);
    const b = rng.int(2, 39);
    lv = a + b;
    rv = lv + rng.pick([-10, -1, 0, 0, 1, 10]);
    left = `${a}+${b}`; right = String(rv);
  } else if (shape === 2) {
    const a = rng.int(2, 9);
    const b = rng.int(2, 9);
    lv = a * b;
    rv = rng.chance(0.4) ? lv : lv + rng.pick([-2, -1, 1, 3]);
    left = `${a}×${b}`; right = String(rv);
  } else {
    const a = rng.int(2, 9);
    const b = rng.int(2, 9);
    lv = a * b;
    const c = rng.int(2, 9);
    const d = rng.int(2, 9);
    rv = c * d;
    left = `${a}×${b}`; right = `${c}×${d}`;
  }
  const c = cmp(lv, rv);
  return {
    kind: 'compare', question: `${left}○${right}`, before: left, after: right, slot: 'circle', correct: c,
    wrong: (r) => (c === '=' ? r.pick(['>', '<']) : c === '>' ? r.pick(['<', '<', '=']) : r.pick(['>', '>', '='])),
  };
}

function remainder(rng: Rng): Draft {
  const d = rng.int(2, 9);
  const q = rng.int(1, 9);
  const r = rng.int(1, d - 1);
  const a = d * q + r;
  return {
    kind: 'remainder', question: `${a}÷${d}=`, before: `${a}÷${d}=`, after: '', slot: 'end', correct: `${q}……${r}`,
    wrong: (g) => {
      if (q > 1 && g.chance(0.5)) return `${q - 1}……${r + d}`; // remainder bigger than the divisor
      if (g.chance(0.5)) return `${q + 1}……${Math.max(0, r - 1)}`;
      return `${q}……${r === 1 ? 2 : r - 1}`;
    },
  };
}

// ---------- items the lamp cannot judge itself ----------

const WORDS: [string, string, string][] = [
  ['kāi xīn', '开心', '开新'], ['péng you', '朋友', '朋有'], ['xué xiào', '学校', '学效'], ['tài yáng', '太阳', '大阳'],
  ['huā duǒ', '花朵', '花朶'], ['lǎo shī', '老师', '老帅'], ['tiān kōng', '天空', '天工'], ['xiǎo niǎo', '小鸟', '小乌'],
  ['bái yún', '白云', '白去'], ['shēng rì', '生日', '生曰'], ['dà hǎi', '大海', '大每'], ['chūn tiān', '春天', '春夭'],
];

function wordProblem(rng: Rng): Draft {
  const t = rng.int(0, 4);
  let text: string;
  let n: number;
  let unit: string;
  if (t === 0) {
    const a = rng.int(12, 30); const b = rng.int(3, a - 2);
    text = `小明有${a}支铅笔，送给同学${b}支，还剩几支？`; n = a - b; unit = '支';
  } else if (t === 1) {
    const a = rng.int(5, 40); const b = rng.int(3, 30);
    text = `树上有${a}只小鸟，又飞来${b}只，现在一共有几只？`; n = a + b; unit = '只';
  } else if (t === 2) {
    const a = rng.int(2, 9); const b = rng.int(2, 9);
    text = `每盒有${a}个鸡蛋，${b}盒一共有多少个鸡蛋？`; n = a * b; unit = '个';
  } else if (t === 3) {
    const b = rng.int(2, 9); const q = rng.int(2, 9);
    text = `${b * q}个苹果平均分给${b}个小朋友，每人分几个？`; n = q; unit = '个';
  } else {
    const a = rng.int(40, 99); const b = rng.int(10, a - 5);
    text = `一本故事书有${a}页，小红已经看了${b}页，还剩多少页没看？`; n = a - b; unit = '页';
  }
  const val = n;
  return {
    kind: 'non_arithmetic', question: text, before: text, after: '', slot: 'line', correct: `${val}${unit}`, wide: true,
    wrong: (r) => `${val + r.pick([-1, 1, 10])}${unit}`,
  };
}

function pinyinWord(rng: Rng): Draft {
  const [py, word, wrongWord] = rng.pick(WORDS);
  const before = `看拼音写词语：${py}`;
  return {
    kind: 'non_arithmetic', question: before.replace(/\s+/g, ''), before, after: '', slot: 'boxes', correct: word, wide: true,
    boxes: [...word].length, wrong: () => wrongWord,
  };
}

// ---------- the page ----------

type Gen = 'add' | 'sub' | 'mul' | 'div' | 'mixed' | 'fill' | 'compare' | 'remainder' | 'decimal' | 'fraction';

const MIX: Record<Grade, Record<Gen, number>> = {
  1: { add: 5, sub: 5, mul: 0, div: 0, mixed: 1.5, fill: 2.5, compare: 2, remainder: 0, decimal: 0, fraction: 0 },
  2: { add: 3, sub: 3, mul: 3, div: 2.5, mixed: 2, fill: 2, compare: 1.5, remainder: 1.5, decimal: 0, fraction: 0 },
  3: { add: 2, sub: 2, mul: 2, div: 2, mixed: 2.5, fill: 1.5, compare: 1.5, remainder: 2, decimal: 1.5, fraction: 1.2 },
};

function draft(rng: Rng, grade: Grade, g: Gen): Draft {
  switch (g) {
    case 'add': return addition(rng, grade);
    case 'sub': return subtraction(rng, grade);
    case 'mul': return multiplication(rng);
    case 'div': return division(rng);
    case 'mixed': return mixed(rng);
    case 'fill': return fillBlank(rng, grade);
    case 'compare': return compare(rng, grade);
    case 'remainder': return remainder(rng);
    case 'decimal': return decimals(rng);
    case 'fraction': return fractions(rng);
  }
}

export interface ProblemSet {
  grade: Grade;
  problems: Problem[];
  /** Share of judged answers (blank ones excluded) that are wrong. */
  wrongShare: number;
}

/** `count` grid problems (20–40) plus 0–2 full-width items the cloud must judge. */
export function makeProblems(rng: Rng, grade: Grade, count: number): ProblemSet {
  const drafts: Draft[] = [];
  const seen = new Set<string>();
  while (drafts.length < count) {
    const d = draft(rng, grade, rng.weighted(MIX[grade]));
    if (seen.has(d.question)) continue;
    seen.add(d.question);
    drafts.push(d);
  }
  const nWide = rng.weighted({ 0: 4, 1: 4, 2: 2 } as Record<string, number>);
  for (let i = 0; i < Number(nWide); i++) drafts.push(grade === 1 || rng.chance(0.4) ? pinyinWord(rng) : wordProblem(rng));

  const judged = drafts.map((d, i) => ({ d, i })).filter((x) => x.d.kind !== 'non_arithmetic');
  const order = rng.shuffle(judged.map((x) => x.i));
  const nBlank = rng.weighted({ 0: 2, 1: 4, 2: 3 } as Record<string, number>);
  const blanks = new Set(order.slice(0, Number(nBlank)));
  const rest = order.slice(Number(nBlank));
  const nWrong = Math.round(rest.length * rng.range(0.15, 0.25));
  const wrongs = new Set(rest.slice(0, nWrong));

  const problems = drafts.map((d, i): Problem => {
    const base = { kind: d.kind, question: d.question, before: d.before, after: d.after, slot: d.slot, correct: d.correct, wide: d.wide ?? false, ...(d.boxes ? { boxes: d.boxes } : {}) };
    if (d.kind === 'non_arithmetic') {
      const student = rng.chance(0.75) ? d.correct : d.wrong(rng);
      return { ...base, student, blank: false, verdict: 'uncertain' };
    }
    if (blanks.has(i)) return { ...base, student: '', blank: true, verdict: 'incorrect' };
    if (wrongs.has(i)) {
      let w = d.wrong(rng);
      for (let k = 0; k < 5 && w === d.correct; k++) w = d.wrong(rng);
      if (w !== d.correct) return { ...base, student: w, blank: false, verdict: 'incorrect' };
    }
    return { ...base, student: d.correct, blank: false, verdict: 'correct' };
  });
  const nonBlank = problems.filter((p) => p.kind !== 'non_arithmetic' && !p.blank);
  const wrongShare = nonBlank.filter((p) => p.verdict === 'incorrect').length / Math.max(1, nonBlank.length);
  return { grade, problems, wrongShare };
}
