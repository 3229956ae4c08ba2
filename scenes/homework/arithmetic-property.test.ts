import { describe, expect, it } from 'vitest';
import { gradeProblem } from './arithmetic.js';
import { splitProblems } from './arithmetic-split.js';

/**
 * Property: a right answer is never marked wrong. Thousands of random correct 口算 problems of
 * every kind, written the ways OCR gives them back (spaces, full width, look-alikes, remainder
 * marks), must never come out 'incorrect'; written cleanly they must come out 'correct'.
 */

/** mulberry32: a small seeded generator, so every run checks the same problems. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Generated {
  /** Tokens of the problem with the child's right answer in place. */
  tokens: string[];
  kind: string;
}

function problems(rnd: () => number): () => Generated {
  const int = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const tenths = (x: number): string => (x % 10 === 0 ? String(x / 10) : `${Math.floor(x / 10)}.${x % 10}`);
  /** a op b = c with whole numbers, as grade 1–3 drills have them. */
  const basic = (): [string, string, string, number] => {
    const op = pick(['+', '-', '×', '÷']);
    if (op === '+') {
      const a = int(0, 99);
      const b = int(0, 99);
      return [String(a), op, String(b), a + b];
    }
    if (op === '-') {
      const a = int(0, 100);
      const b = int(0, a);
      return [String(a), op, String(b), a - b];
    }
    const a = int(1, 9);
    const b = int(1, 9);
    return op === '×' ? [String(a), op, String(b), a * b] : [String(a * b), op, String(a), b];
  };
  const makers: Array<() => Generated> = [
    () => {
      const [a, op, b, c] = basic();
      return { kind: 'expression', tokens: [a, op, b, '=', String(c)] };
    },
    () => {
      // Precedence and brackets.
      const a = int(0, 50);
      const b = int(1, 9);
      const c = int(1, 9);
      return pick([
        { kind: 'expression', tokens: [String(a), '+', String(b), '×', String(c), '=', String(a + b * c)] },
        { kind: 'expression', tokens: ['(', String(a), '+', String(b), ')', '×', String(c), '=', String((a + b) * c)] },
        { kind: 'expression', tokens: [String(b * c), '÷', String(b), '+', String(a), '=', String(c + a)] },
        { kind: 'expression', tokens: [String(a + b * c), '-', String(b), '×', String(c), '=', String(a)] },
        { kind: 'expression', tokens: [String(a + b), '-', '(', String(b), '+', '0', ')', '=', String(a)] },
      ]);
    },
    () => {
      // Decimals in tenths; the child may keep a trailing zero.
      const x = int(1, 99);
      const y = int(1, 99);
      const sum = tenths(x + y);
      return { kind: 'expression', tokens: [tenths(x), '+', tenths(y), '=', rnd() < 0.2 && !sum.includes('.') ? `${sum}.0` : sum] };
    },
    () => {
      // Fractions with one denominator, not reduced (grade 3).
      const d = int(2, 12);
      const p = int(1, d - 1);
      const q = int(1, d - p);
      return pick([
        { kind: 'expression', tokens: [`${p}/${d}`, '+', `${q}/${d}`, '=', `${p + q}/${d}`] },
        { kind: 'expression', tokens: [`${p + q}/${d}`, '-', `${q}/${d}`, '=', `${p}/${d}`] },
      ]);
    },
    () => {
      // A fill-in blank in any of the three places.
      // × and ÷ use 1–9 only, so no blank has many solutions (0×( )=0).
      const [a, op, b, c] = basic();
      const where = int(0, 2);
      const blank = (x: string): string[] => (rnd() < 0.5 ? ['(', x, ')'] : ['(', ' ', x, ' ', ')']);
      const left = where === 0 ? blank(a) : [a];
      const right = where === 1 ? blank(b) : [b];
      const result = where === 2 ? blank(String(c)) : [String(c)];
      return { kind: 'fill_blank', tokens: [...left, op, ...right, '=', ...result] };
    },
    () => {
      // A comparison, either side an expression.
      const [a, op, b, c] = basic();
      const other = int(0, 99);
      const sign = c > other ? '>' : c < other ? '<' : '=';
      const written = pick([sign, `(${sign})`, `○${sign}`]);
      return rnd() < 0.5
        ? { kind: 'compare', tokens: [a, op, b, written, String(other)] }
        : { kind: 'compare', tokens: [String(other), written.replace(sign, sign === '>' ? '<' : sign === '<' ? '>' : '='), a, op, b] };
    },
    () => {
      // Division with a remainder.
      const b = int(2, 9);
      const q = int(0, 9);
      const r = int(1, b - 1);
      return { kind: 'remainder', tokens: [String(b * q + r), pick(['÷', '÷', '/']), String(b), '=', `${q}${pick(['……', '...', '…', '……'])}${r}`] };
    },
  ];
  return () => pick(makers)();
}

const FULL_WIDTH = (s: string): string => s.replace(/[0-9+\-=()<>]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));

/** The problem written as OCR might return it: spaced out, full width, look-alikes. */
function messy(tokens: string[], rnd: () => number): string {
  let text = tokens.map((t) => (rnd() < 0.3 ? ` ${t} ` : t)).join('');
  if (rnd() < 0.2) text = FULL_WIDTH(text);
  if (rnd() < 0.3) text = text.replace(/×/g, () => (rnd() < 0.5 ? 'x' : '*'));
  if (rnd() < 0.3) text = text.replace(/÷/g, ':');
  if (rnd() < 0.3) text = text.replace(/0/g, 'O');
  if (rnd() < 0.2) text = text.replace(/-/g, '—');
  return text;
}

describe('property: a right answer is never marked wrong', () => {
  it('2,000 random correct problems, written as OCR returns them: never incorrect', () => {
    const rnd = generator(20240901);
    const next = problems(rnd);
    const verdicts = { correct: 0, incorrect: 0, uncertain: 0 };
    const wrong: string[] = [];
    for (let n = 0; n < 2000; n++) {
      const p = next();
      const text = messy(p.tokens, rnd);
      const g = gradeProblem({ text, confidence: 0.8 + rnd() * 0.2 });
      verdicts[g.verdict]++;
      if (g.verdict === 'incorrect') wrong.push(`${text} → ${JSON.stringify(g)}`);
    }
    expect(wrong).toEqual([]);
    // The property must not hold by saying 'uncertain' to everything.
    expect(verdicts.correct).toBeGreaterThan(1800);
  });

  it('2,000 random correct problems, written cleanly: all correct, of the kind they are', () => {
    const rnd = generator(7);
    const next = problems(rnd);
    for (let n = 0; n < 2000; n++) {
      const p = next();
      const text = p.tokens.join('');
      const g = gradeProblem({ text, confidence: 0.95 });
      expect({ text, verdict: g.verdict, kind: g.kind }).toEqual({ text, verdict: 'correct', kind: p.kind });
    }
  });

  it('500 random drill rows of three correct problems split back into their problems', () => {
    const rnd = generator(99);
    const next = problems(rnd);
    for (let n = 0; n < 500; n++) {
      const row = [next(), next(), next()].map((p) => p.tokens.join(''));
      const gap = rnd() < 0.5 ? ' ' : '   ';
      expect(splitProblems(row.join(gap))).toEqual(row);
    }
  });
});
