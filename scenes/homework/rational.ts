/**
 * Exact rational numbers on BigInt for checking arithmetic homework: 0.1 + 0.2 is exactly 0.3
 * and 1/3 stays 1/3, so a child's right answer is never lost to floating point. Values are
 * always normalised (lowest terms, positive denominator), so structural equality is value
 * equality. Pure; no I/O.
 */

export interface Rational {
  readonly num: bigint;
  readonly den: bigint;
}

const abs = (x: bigint): bigint => (x < 0n ? -x : x);

function gcd(a: bigint, b: bigint): bigint {
  a = abs(a);
  b = abs(b);
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** num/den in lowest terms. A zero denominator is a programming error here: callers check division first. */
export function rat(num: bigint, den: bigint = 1n): Rational {
  if (den === 0n) throw new RangeError('rational with a zero denominator');
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  const g = gcd(num, den) || 1n;
  return { num: num / g, den: den / g };
}

export const ZERO = rat(0n);

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;
const FRACTION = /^(\d+)\/(\d+)$/;

/**
 * A number as the child writes it: "12", "0.50", "3/4". Null for anything else, and for a
 * fraction with a zero denominator (there is no such number).
 */
export function parseRational(text: string): Rational | null {
  const f = FRACTION.exec(text);
  if (f) {
    const den = BigInt(f[2] as string);
    return den === 0n ? null : rat(BigInt(f[1] as string), den);
  }
  const d = DECIMAL.exec(text);
  if (!d) return null;
  const frac = d[2] ?? '';
  return rat(BigInt((d[1] as string) + frac), 10n ** BigInt(frac.length));
}

export const add = (a: Rational, b: Rational): Rational => rat(a.num * b.den + b.num * a.den, a.den * b.den);
export const sub = (a: Rational, b: Rational): Rational => rat(a.num * b.den - b.num * a.den, a.den * b.den);
export const mul = (a: Rational, b: Rational): Rational => rat(a.num * b.num, a.den * b.den);
/** a ÷ b, or null when b is zero. */
export const div = (a: Rational, b: Rational): Rational | null => (b.num === 0n ? null : rat(a.num * b.den, a.den * b.num));

export const equals = (a: Rational, b: Rational): boolean => a.num === b.num && a.den === b.den;
export const compare = (a: Rational, b: Rational): -1 | 0 | 1 => {
  const l = a.num * b.den;
  const r = b.num * a.den;
  return l < r ? -1 : l > r ? 1 : 0;
};
export const isInteger = (a: Rational): boolean => a.den === 1n;
export const isZero = (a: Rational): boolean => a.num === 0n;
export const isNegative = (a: Rational): boolean => a.num < 0n;

/** Whether the value has a finite decimal form: its denominator has no prime factors but 2 and 5. */
export function isTerminating(a: Rational): boolean {
  let d = a.den;
  while (d % 2n === 0n) d /= 2n;
  while (d % 5n === 0n) d /= 5n;
  return d === 1n;
}

/** "3/4"; integers plainly ("2", "-5"). */
export function toFraction(a: Rational): string {
  return a.den === 1n ? String(a.num) : `${a.num}/${a.den}`;
}

/** "0.75" without trailing zeros; null when the decimal does not terminate (1/3). */
export function toDecimal(a: Rational): string | null {
  if (!isTerminating(a)) return null;
  let places = 0;
  let scale = 1n;
  while ((a.num * scale) % a.den !== 0n) {
    places++;
    scale *= 10n;
  }
  const scaled = abs((a.num * scale) / a.den);
  const digits = scaled.toString().padStart(places + 1, '0');
  const sign = a.num < 0n ? '-' : '';
  if (places === 0) return sign + digits;
  return `${sign}${digits.slice(0, -places)}.${digits.slice(-places)}`;
}

/**
 * The canonical answer a child would write: integers plainly; for a drill with fractions a/b in
 * lowest terms; otherwise a terminating decimal, or a fraction when the decimal never ends.
 */
export function formatRational(a: Rational, style: 'fraction' | 'decimal'): string {
  if (style === 'fraction') return toFraction(a);
  return toDecimal(a) ?? toFraction(a);
}
