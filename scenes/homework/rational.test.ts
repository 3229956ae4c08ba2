import { describe, expect, it } from 'vitest';
import { add, compare, div, equals, formatRational, mul, parseRational, rat, sub, toDecimal, toFraction } from './rational.js';

const r = (text: string) => {
  const v = parseRational(text);
  if (!v) throw new Error(`not a number: ${text}`);
  return v;
};

describe('Rational', () => {
  it.each([
    ['12', 12n, 1n],
    ['0.5', 1n, 2n],
    ['0.50', 1n, 2n],
    ['2.25', 9n, 4n],
    ['2/4', 1n, 2n],
    ['0/7', 0n, 1n],
    ['007', 7n, 1n],
  ])('parses %s as %s/%s in lowest terms', (text, num, den) => {
    expect(parseRational(text)).toEqual({ num, den });
  });

  it.each(['', '1/0', '1.', '.5', '-3', '1/2/3', '1.5/2', 'abc'])('rejects %j', (text) => {
    expect(parseRational(text)).toBeNull();
  });

  it('is exact where floating point is not', () => {
    expect(toDecimal(add(r('0.1'), r('0.2')))).toBe('0.3');
    expect(equals(add(r('1/3'), r('1/3')), r('2/3'))).toBe(true);
    expect(toFraction(mul(r('1/3'), r('3')))).toBe('1');
    expect(toFraction(sub(r('1'), r('1/3')))).toBe('2/3');
  });

  it('division by zero is null, not an exception', () => {
    expect(div(r('5'), r('0'))).toBeNull();
    expect(div(r('0'), r('5'))).toEqual(rat(0n));
  });

  it('works far beyond 2^53', () => {
    const big = r('123456789012345678901234567890');
    expect(toFraction(mul(big, r('10')))).toBe('1234567890123456789012345678900');
  });

  it.each([
    ['1', '2', -1],
    ['0.5', '1/2', 0],
    ['3/4', '0.7', 1],
  ])('compares %s with %s', (a, b, expected) => {
    expect(compare(r(a), r(b))).toBe(expected);
  });

  it.each([
    ['3/4', 'decimal', '0.75'],
    ['3/4', 'fraction', '3/4'],
    ['1/3', 'decimal', '1/3'],
    ['6/3', 'fraction', '2'],
    ['2.50', 'decimal', '2.5'],
    ['1/20', 'decimal', '0.05'],
  ] as const)('formats %s as a %s: %s', (text, style, expected) => {
    expect(formatRational(r(text), style)).toBe(expected);
  });

  it('keeps a negative value negative when formatting', () => {
    expect(toDecimal(sub(r('0.25'), r('1')))).toBe('-0.75');
    expect(toFraction(sub(r('1/4'), r('1')))).toBe('-3/4');
  });
});
