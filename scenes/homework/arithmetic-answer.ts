import type { Problem } from './arithmetic-parse.js';
import { equals, formatRational, parseRational } from './rational.js';

/** The answer side of grading: the canonical answer of a problem and whether the child wrote it. Pure. */

export type Gradable = Exclude<Problem, { kind: 'not_arithmetic' | 'ambiguous' }>;

/** The canonical answer string of a problem. */
export function correctAnswer(p: Gradable): string {
  switch (p.kind) {
    case 'expression':
      return formatRational(p.expected, p.style) + (p.unit ?? '');
    case 'fill_blank':
      return formatRational(p.expected, p.style);
    case 'compare':
      return p.expected;
    case 'remainder':
      return p.remainder === 0n ? String(p.quotient) : `${p.quotient}……${p.remainder}`;
  }
}

export const withoutUnit = (answer: string, unit: string | undefined): string => (unit && answer.endsWith(unit) ? answer.slice(0, -unit.length) : answer.replace(/[^\d./…]+$/u, ''));

const lowestTerms = (text: string): boolean => {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  if (!m) return true;
  const v = parseRational(text);
  return v !== null && v.den === BigInt(m[2] as string);
};

type Match = { ok: true } | { ok: false; reason: string; readable: boolean };

/** Whether what the child wrote is the exact answer; when not, the reason for the scene. */
export function matchAnswer(p: Gradable, opts: { requireLowestTerms?: boolean } = {}): Match {
  const wrong = (reason: string): Match => ({ ok: false, reason, readable: true });
  switch (p.kind) {
    case 'compare':
      return p.studentAnswer === p.expected ? { ok: true } : wrong('wrong_sign');
    case 'expression':
    case 'fill_blank': {
      const written = withoutUnit(p.studentAnswer, p.unit);
      const v = parseRational(written);
      if (!v) return { ok: false, reason: 'unreadable_answer', readable: false };
      if (!equals(v, p.expected)) return wrong('wrong_answer');
      if (opts.requireLowestTerms && !lowestTerms(written)) return wrong('not_lowest_terms');
      return { ok: true };
    }
    case 'remainder': {
      const written = withoutUnit(p.studentAnswer, p.unit);
      const parts = written.split('……');
      if (parts.length === 1) {
        const v = parseRational(written);
        if (!v) return { ok: false, reason: 'unreadable_answer', readable: false };
        return equals(v, p.expected) ? { ok: true } : wrong('wrong_quotient');
      }
      const [qText, rText] = parts as [string, string];
      if (!/^\d+$/.test(qText)) return { ok: false, reason: 'unreadable_answer', readable: false };
      const q = BigInt(qText);
      // A remainder not read, or read with a point no remainder has: whatever it was, a wrong
      // quotient is wrong ("61÷7=7……1.2", "23÷7=2……").
      if (!/^\d+$/.test(rText)) return q !== p.quotient && /^(\d+\.\d+)?$/.test(rText) ? wrong('wrong_quotient') : { ok: false, reason: 'unreadable_answer', readable: false };
      const r = BigInt(rText);
      if (q === p.quotient && r === p.remainder) return { ok: true };
      if (r >= p.divisor) return wrong('remainder_too_large');
      return q === p.quotient ? wrong('wrong_remainder') : wrong('wrong_quotient');
    }
  }
}

