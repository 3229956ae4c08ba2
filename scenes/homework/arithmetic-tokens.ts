/**
 * Tokens of canonical math text (the output of normalise.ts). Shared by the problem parser and
 * the drill-row splitter. Pure; no I/O.
 */

export type TokenType = 'num' | 'op' | 'slash' | 'open' | 'close' | 'eq' | 'rel' | 'rem' | 'unit' | 'word' | 'sep';

export interface Token {
  type: TokenType;
  text: string;
  /** [start, end) in the normalised text. */
  start: number;
  end: number;
}

/**
 * Units that may follow a number in grade 2–3 (money, length, mass, time). Longest first, so
 * 厘米 is one unit and not 厘 + 米.
 */
export const UNITS = ['厘米', '毫米', '分米', '千米', '千克', '分钟', '小时', '米', '克', '吨', '元', '角', '分', '时', '秒', '天', 'cm', 'mm', 'dm', 'km', 'kg', 'm', 'g'];

const SINGLE: Record<string, TokenType> = {
  '+': 'op',
  '-': 'op',
  '×': 'op',
  '÷': 'op',
  '/': 'slash',
  '(': 'open',
  ')': 'close',
  '=': 'eq',
  '○': 'rel',
  '>': 'rel',
  '<': 'rel',
  ' ': 'sep',
  '\t': 'sep',
};

/** A unit stands right after a number or a blank, and a Latin unit is not the start of a longer word. */
function unitAt(text: string, i: number, prev: Token | undefined): string | null {
  if (!prev || (prev.type !== 'num' && prev.type !== 'close')) return null;
  for (const u of UNITS) {
    if (!text.startsWith(u, i)) continue;
    if (/[a-z]/i.test(u) && /[a-z]/i.test(text.charAt(i + u.length))) continue;
    return u;
  }
  return null;
}

export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charAt(i);
    const prev = out[out.length - 1];
    const num = /^\d+(?:\.\d+)?/.exec(text.slice(i));
    if (num) {
      out.push({ type: 'num', text: num[0], start: i, end: i + num[0].length });
      i += num[0].length;
      continue;
    }
    if (text.startsWith('……', i)) {
      out.push({ type: 'rem', text: '……', start: i, end: i + 2 });
      i += 2;
      continue;
    }
    const type = SINGLE[c];
    if (type) {
      out.push({ type, text: c, start: i, end: i + 1 });
      i++;
      continue;
    }
    const unit = unitAt(text, i, prev);
    if (unit) {
      out.push({ type: 'unit', text: unit, start: i, end: i + unit.length });
      i += unit.length;
      continue;
    }
    // Anything else (Chinese, letters, stray signs) is a word; neighbouring ones merge.
    const cp = String.fromCodePoint(text.codePointAt(i) as number);
    if (prev?.type === 'word' && prev.end === i) {
      prev.text += cp;
      prev.end += cp.length;
    } else out.push({ type: 'word', text: cp, start: i, end: i + cp.length });
    i += cp.length;
  }
  return out;
}
