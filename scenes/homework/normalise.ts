/**
 * OCR text of an arithmetic problem → the lamp's canonical math text. Canonical text uses ASCII
 * digits and `. + - ( ) = /`, the lamp's own characters `× ÷ ○ > <`, `……` for the remainder mark
 * and `()` for an empty blank. Anything else (Chinese, letters) is left as it is, so the parser
 * can tell that the item is not arithmetic.
 *
 * Every change is recorded. A width or spelling variant (`＝`, `（`, `−`, `…`) is certain; a
 * look-alike (`x` for ×, `O` for 0, `l` for 1, `:` for ÷, `一` for -) is a guess made from the
 * context, and the grader lowers its confidence for each guess and never marks an answer wrong
 * through one. Pure; no I/O.
 *
 * Context rules, in short:
 * - `x X *` → ×, `: ∶` → ÷, `— – ‐ 一 ー ─` → -, `十` → + only between two operands (a digit or
 *   `)` or a blank before, a digit or `(` or a blank after; spaces ignored). Elsewhere they stay.
 * - `O o 〇` → 0 and `l I | 丨` → 1 when next to a digit, or standing alone as an operand
 *   between operators (`l+2=3`). One such `O` between two digits in a problem without `=` or a
 *   comparison sign is the comparison circle instead (`45O54` → `45○54`).
 * - `/` is a fraction bar (`1/5+2/5=3/5`), except in the division-drill shape `a/b=…` with a
 *   single slash where a ≥ b or the answer has a remainder mark (`56/7=8`, `17/5=3……2`): there
 *   it is ÷. Division and a fraction bar have the same value, so the choice only matters for
 *   reading remainders and for showing the problem.
 * - Two or more dots (`...`, `…`, `……`, `⋯`, `··`) are the remainder mark `……`; one `.` between
 *   digits is a decimal point and is dropped elsewhere.
 * - `□`, `_` and runs of dashes are an empty blank `()`; `口` (how OCR often reads □) too when
 *   it stands next to an operator or `=`.
 * - `二` (how OCR often reads =) → `=` between an operand and an operand or the end, when the
 *   problem has no `=` of its own.
 * - `。 ， 、 ;` and spaces are dropped; a punctuation mark or a space dropped from between two
 *   digits is recorded as a guess, since it may have been a decimal point or a sign OCR missed.
 *
 * In 'line' mode (for splitting a drill row) spaces and punctuation are kept as separators: a
 * single space or a punctuation mark becomes ' ', a wide gap (two spaces, a tab, an ideographic
 * space) becomes '\t'. The circle rule then applies per space-separated group.
 */

export interface Substitution {
  /** Where the replacement stands in the normalised text; a dropped character has length 0. */
  at: number;
  length: number;
  /** The raw characters replaced. */
  from: string;
  /** What they became ('' when dropped). */
  to: string;
  /** A look-alike read from the context rather than a certain variant of the same sign. */
  guess: boolean;
}

export interface NormalisedMath {
  text: string;
  substitutions: Substitution[];
  /** For each UTF-16 unit of `text`, the [start, end) of the raw characters it came from. */
  source: Array<readonly [number, number]>;
}

export type NormaliseMode = 'problem' | 'line';

type Role =
  | 'digit'
  | 'dot'
  | 'op'
  | 'slash'
  | 'open'
  | 'close'
  | 'eq'
  | 'rel'
  | 'rem'
  | 'blank'
  | 'space'
  | 'hard'
  | 'punct'
  | 'other'
  // Look-alikes still waiting for their context.
  | 'maybe_digit'
  | 'maybe_op'
  | 'maybe_eq'
  | 'maybe_blank';

interface Item {
  role: Role;
  out: string;
  /** Raw span. */
  s: number;
  e: number;
  guess: boolean;
  /** What a look-alike becomes when the context allows. */
  target?: string;
  /** The circle rule may only turn O-like characters into ○, not l-like ones. */
  roundish?: boolean;
}

const DOTS = new Set(['.', '·', '⋯', '。', '・', '…']);
const SOFT_DOTS = new Set(['·', '。', '・']);
const DASH_RUN = new Set(['-', '—', '–', '‐', '‑', '‒', '―', '─', '━', '_', '一', 'ー']);
const LINE_DASH = new Set(['—', '–', '‐', '‑', '‒', '―', '─', '━', '_', '-']);
const CERTAIN_MINUS = new Set(['−', '﹣']);
const TIMES_SIGNS = new Set(['✕', '⨯', '✖', '╳']);
const TIMES_LOOKALIKES = new Set(['x', 'X', '*', '×']);
const DIVIDE_LOOKALIKES = new Set([':', '∶']);
const OPEN = new Set(['(', '[', '【', '〔', '﹝', '〖']);
const CLOSE = new Set([')', ']', '】', '〕', '﹞', '〗']);
/** A blurred round bracket the recogniser reads as a curly one ("61-{38+20)=3"). */
const CURLY = new Map<string, Role>([['{', 'open'], ['}', 'close']]);
const CIRCLES = new Set(['○', '◯', '⭕']);
const GREATER = new Map([['>', false], ['〉', true], ['》', true], ['›', true]]);
const LESS = new Map([['<', false], ['〈', true], ['《', true], ['‹', true]]);
const ROUND_DIGIT = new Set(['O', 'o', '〇', 'ο', 'О', 'о']);
const STICK_DIGIT = new Set(['l', 'I', '|', '丨', 'ǀ']);
const BOXES = new Set(['□', '☐', '▢', '⬜', '◻', '▭']);
const PUNCT = new Set([',', '，', '、', ';', '；', '!', '?', '"', "'", '“', '”', '‘', '’', '。', '·', '・']);
const LABELS = /[\u2460-\u2473\u2474-\u2487\u2488-\u249b]/u; // ① ⑴ ⒈: item numbers, never part of a problem

interface Unit {
  c: string;
  s: number;
  e: number;
  wide: boolean;
}

/** Characters after compatibility normalisation (full width → ASCII), each with its raw span. */
function units(raw: string): Unit[] {
  const out: Unit[] = [];
  let pos = 0;
  for (const ch of raw) {
    const s = pos;
    pos += ch.length;
    if (LABELS.test(ch)) {
      out.push({ c: '', s, e: pos, wide: false });
      continue;
    }
    const wide = ch === '\u3000' || ch === '\t' || ch === '\n';
    const n = ch === '…' || ch === '⋯' ? ch : ch.normalize('NFKC');
    for (const c of n) out.push({ c, s, e: pos, wide });
  }
  return out;
}

function classify(us: Unit[], mode: NormaliseMode): Item[] {
  const items: Item[] = [];
  let i = 0;
  const item = (role: Role, out: string, s: number, e: number, guess = false, extra: Partial<Item> = {}): void => {
    items.push({ role, out, s, e, guess, ...extra });
  };
  while (i < us.length) {
    const u = us[i] as Unit;
    const c = u.c;
    if (c === '') {
      item('space', '', u.s, u.e);
      i++;
      continue;
    }
    if (/\s/u.test(c)) {
      let j = i;
      let wide = false;
      while (j < us.length && /\s/u.test((us[j] as Unit).c)) {
        wide ||= (us[j] as Unit).wide;
        j++;
      }
      const rawSpaces = new Set(us.slice(i, j).map((x) => x.s)).size;
      item(wide || rawSpaces >= 2 ? 'hard' : 'space', '', u.s, (us[j - 1] as Unit).e);
      i = j;
      continue;
    }
    if (DOTS.has(c)) {
      let j = i;
      while (j < us.length && DOTS.has((us[j] as Unit).c)) j++;
      const run = us.slice(i, j);
      const rawCount = new Set(run.map((x) => x.s)).size;
      const e = (us[j - 1] as Unit).e;
      if (rawCount >= 2 || c === '…' || c === '⋯') item('rem', '……', u.s, e, run.some((x) => SOFT_DOTS.has(x.c)));
      else if (c === '.') item('dot', '.', u.s, e);
      else item('punct', '', u.s, e);
      i = j;
      continue;
    }
    if (DASH_RUN.has(c)) {
      let j = i;
      while (j < us.length && LINE_DASH.has((us[j] as Unit).c)) j++;
      const rawCount = new Set(us.slice(i, j).map((x) => x.s)).size;
      if (rawCount >= 2 || c === '_') {
        item('blank', '()', u.s, (us[j - 1] as Unit).e);
        i = j;
        continue;
      }
      if (c === '-') item('op', '-', u.s, u.e);
      else item('maybe_op', c, u.s, u.e, c === '一' || c === 'ー' || c === '─' || c === '━', { target: '-' });
      i++;
      continue;
    }
    i++;
    if (/[0-9]/.test(c)) item('digit', c, u.s, u.e);
    else if (c === '+' || c === '÷') item('op', c, u.s, u.e);
    else if (CERTAIN_MINUS.has(c)) item('op', '-', u.s, u.e);
    else if (TIMES_SIGNS.has(c)) item('op', '×', u.s, u.e);
    else if (c === '×') item('op', '×', u.s, u.e);
    else if (TIMES_LOOKALIKES.has(c)) item('maybe_op', c, u.s, u.e, true, { target: '×' });
    else if (DIVIDE_LOOKALIKES.has(c)) item('maybe_op', c, u.s, u.e, true, { target: '÷' });
    else if (c === '十') item('maybe_op', c, u.s, u.e, true, { target: '+' });
    else if (c === '/' || c === '⁄' || c === '∕') item('slash', '/', u.s, u.e);
    else if (OPEN.has(c)) item('open', '(', u.s, u.e);
    else if (CLOSE.has(c)) item('close', ')', u.s, u.e);
    else if (CURLY.has(c)) item(CURLY.get(c) as Role, c === '{' ? '(' : ')', u.s, u.e, true);
    else if (c === '=') item('eq', '=', u.s, u.e);
    else if (c === '二') item('maybe_eq', c, u.s, u.e, true, { target: '=' });
    else if (CIRCLES.has(c)) item('rel', '○', u.s, u.e);
    else if (GREATER.has(c)) item('rel', '>', u.s, u.e, GREATER.get(c));
    else if (LESS.has(c)) item('rel', '<', u.s, u.e, LESS.get(c));
    else if (ROUND_DIGIT.has(c)) item('maybe_digit', c, u.s, u.e, true, { target: '0', roundish: true });
    else if (STICK_DIGIT.has(c)) item('maybe_digit', c, u.s, u.e, true, { target: '1' });
    else if (BOXES.has(c)) item('blank', '()', u.s, u.e);
    else if (c === '口') item('maybe_blank', c, u.s, u.e, true, { target: '()' });
    else if (PUNCT.has(c)) item('punct', '', u.s, u.e);
    else item('other', c, u.s, u.e);
  }
  if (mode === 'line') for (const it of items) if (it.role === 'punct') it.role = 'space';
  return items;
}

/**
 * The nearest item before/after `i` that is not a space (nor, with `skipDots`, a decimal point),
 * or undefined at the text's edge or a wide gap.
 */
function neighbour(items: Item[], i: number, step: 1 | -1, skipDots = false): Item | undefined {
  for (let j = i + step; j >= 0 && j < items.length; j += step) {
    const it = items[j] as Item;
    if (it.role === 'space' || (skipDots && it.role === 'dot')) continue;
    return it.role === 'hard' ? undefined : it;
  }
  return undefined;
}

const isOperandEnd = (it: Item | undefined): boolean => it !== undefined && (it.role === 'digit' || it.role === 'close' || it.role === 'blank');
const isOperandStart = (it: Item | undefined): boolean =>
  it !== undefined && (it.role === 'digit' || it.role === 'open' || it.role === 'blank' || it.role === 'maybe_blank');
const isDigit = (it: Item | undefined): boolean => it?.role === 'digit';
const isBoundary = (it: Item | undefined): boolean =>
  it === undefined || it.role === 'op' || it.role === 'maybe_op' || it.role === 'eq' || it.role === 'open' || it.role === 'close' || it.role === 'rel';
const isSign = (it: Item | undefined): boolean => it !== undefined && (it.role === 'op' || it.role === 'maybe_op' || it.role === 'eq' || it.role === 'rel');

function resolveDigits(items: Item[]): void {
  let changed = true;
  while (changed) {
    changed = false;
    items.forEach((it, i) => {
      if (it.role !== 'maybe_digit') return;
      if (isDigit(neighbour(items, i, -1, true)) || isDigit(neighbour(items, i, 1, true))) {
        it.role = 'digit';
        it.out = it.target as string;
        changed = true;
      }
    });
  }
  // A look-alike standing alone as an operand: `l+2=3`, `5-O=5`.
  items.forEach((it, i) => {
    if (it.role !== 'maybe_digit') return;
    const p = neighbour(items, i, -1);
    const n = neighbour(items, i, 1);
    if (isBoundary(p) && isBoundary(n) && (isSign(p) || isSign(n)) && p?.role !== 'close' && n?.role !== 'open') {
      it.role = 'digit';
      it.out = it.target as string;
    }
  });
}

/** Groups of items between separators: the whole text in problem mode, space-separated groups in line mode. */
function groups(items: Item[], mode: NormaliseMode): Item[][] {
  if (mode === 'problem') return [items];
  const out: Item[][] = [[]];
  for (const it of items) {
    if (it.role === 'space' || it.role === 'hard') out.push([]);
    else (out[out.length - 1] as Item[]).push(it);
  }
  return out;
}

function resolveCircle(items: Item[], mode: NormaliseMode): void {
  for (const g of groups(items, mode)) {
    if (g.some((it) => it.role === 'eq' || it.role === 'maybe_eq' || it.role === 'rel')) continue;
    const candidates = g.filter((it) => {
      if (!it.roundish || it.role !== 'digit') return false;
      const i = items.indexOf(it);
      return isDigit(neighbour(items, i, -1)) && isDigit(neighbour(items, i, 1));
    });
    if (candidates.length !== 1) continue;
    const c = candidates[0] as Item;
    c.role = 'rel';
    c.out = '○';
  }
}

function resolveSigns(items: Item[]): void {
  items.forEach((it, i) => {
    if (it.role !== 'maybe_op') return;
    if (isOperandEnd(neighbour(items, i, -1)) && isOperandStart(neighbour(items, i, 1))) {
      it.role = 'op';
      it.out = it.target as string;
    }
  });
  items.forEach((it, i) => {
    if (it.role !== 'maybe_blank') return;
    const p = neighbour(items, i, -1);
    const n = neighbour(items, i, 1);
    const edgeBefore = p === undefined || p.role === 'op' || p.role === 'eq' || p.role === 'open' || p.role === 'rel';
    const edgeAfter = n === undefined || n.role === 'op' || n.role === 'eq' || n.role === 'close' || n.role === 'rel';
    if (edgeBefore && edgeAfter && (isSign(p) || isSign(n))) {
      it.role = 'blank';
      it.out = '()';
    }
  });
  const hasEq = items.some((it) => it.role === 'eq');
  items.forEach((it, i) => {
    if (it.role !== 'maybe_eq' || hasEq) return;
    const n = neighbour(items, i, 1);
    if (isOperandEnd(neighbour(items, i, -1)) && (n === undefined || isOperandStart(n))) {
      it.role = 'eq';
      it.out = '=';
    }
  });
  items.forEach((it, i) => {
    if (it.role === 'dot' && !(isDigit(neighbour(items, i, -1)) && isDigit(neighbour(items, i, 1)))) it.out = '';
    // A mark dropped from between two digits may have been a decimal point.
    if (it.role === 'punct' && isDigit(neighbour(items, i, -1)) && isDigit(neighbour(items, i, 1))) it.guess = true;
    if (it.role.startsWith('maybe_')) {
      it.role = 'other';
      it.guess = false;
    }
  });
}

function build(raw: string, items: Item[], mode: NormaliseMode): NormalisedMath {
  let text = '';
  const source: Array<readonly [number, number]> = [];
  const substitutions: Substitution[] = [];
  let k = 0;
  while (k < items.length) {
    const first = items[k] as Item;
    if (first.role === 'space' || first.role === 'hard') {
      if (mode === 'line') {
        const sep = first.role === 'hard' ? '\t' : ' ';
        source.push([first.s, first.e]);
        text += sep;
        const from = raw.slice(first.s, first.e);
        if (from !== sep && /\S/u.test(from)) substitutions.push({ at: text.length - 1, length: 1, from, to: sep, guess: false });
      } else if (items[k - 1]?.role === 'digit' && items[k + 1]?.role === 'digit') {
        // "3 4": one number spaced out by OCR, or a sign it did not see.
        substitutions.push({ at: text.length, length: 0, from: raw.slice(first.s, first.e), to: '', guess: true });
      }
      k++;
      continue;
    }
    // Items that share one raw character (`½` → 1 / 2) are one substitution.
    let j = k;
    let out = '';
    let guess = false;
    while (j < items.length && (items[j] as Item).s === first.s && (items[j] as Item).e === first.e) {
      const it = items[j] as Item;
      out += it.out;
      guess ||= it.guess;
      j++;
    }
    const at = text.length;
    for (let q = 0; q < out.length; q++) source.push([first.s, first.e]);
    text += out;
    const from = raw.slice(first.s, first.e);
    if (from !== out) substitutions.push({ at, length: out.length, from, to: out, guess: guess && from !== out });
    k = j;
  }
  return { text, substitutions, source };
}

const DIVISION_DRILL = /^(\d+)\/(\d+)=([^/]*)$/;

/** `56/7=8` and `17/5=3……2` are division drills; `1/2=` and `1/5+2/5=3/5` keep their fraction bars. */
function divisionDrill(n: NormalisedMath): NormalisedMath {
  const m = DIVISION_DRILL.exec(n.text);
  if (!m) return n;
  const [, a, b, answer] = m as unknown as [string, string, string, string];
  if (!(BigInt(a) >= BigInt(b) || answer.includes('……'))) return n;
  const at = a.length;
  const width = n.substitutions.find((x) => x.at === at && x.length === 1);
  const slash: Substitution = { at, length: 1, from: width?.from ?? '/', to: '÷', guess: true };
  const substitutions = [...n.substitutions.filter((x) => x !== width), slash].sort((x, y) => x.at - y.at);
  return { text: `${n.text.slice(0, at)}÷${n.text.slice(at + 1)}`, source: n.source, substitutions };
}

/** Canonical text, look-alike substitutions and where each character came from. */
export function normaliseMathDetailed(raw: string, mode: NormaliseMode = 'problem'): NormalisedMath {
  const items = classify(units(raw), mode);
  resolveDigits(items);
  resolveCircle(items, mode);
  resolveSigns(items);
  const built = build(raw, items, mode);
  return mode === 'problem' ? divisionDrill(built) : built;
}

/** OCR text of one problem → canonical math text (see the module comment for the rules). */
export function normaliseMath(text: string): string {
  return normaliseMathDetailed(text).text;
}
