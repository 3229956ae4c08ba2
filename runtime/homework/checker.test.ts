import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OcrLine } from '../../models/ocr/index.js';
import { cv, type Mat } from '../../models/cv.js';
import type { OperatorSign } from '../../models/page/operator-shape.js';
import { SIGN_WINDOW } from '../../models/page/signs.js';
import { alternateReading, answerCutAtGap, bareAfterAnswer, bracketTakenForDigit, HomeworkChecker, comparisonMisread, confirmedByRereading, cutByEdge, digitLost, digitLostInBracket, dotsLostBetween, doubtedByRereading, endedByNext, gradeWithSigns, inkBox, pointSeenInAnswer, remainderAfter, remainderDigit, rightAsSecondChoice, rightWhateverTheSign, rightWithSignInGap, rightWithSignReadAsDigit, sharesReading, writtenInBlank, unevenDivision, weakCharsOf } from './checker.js';
import { circlesInGaps, doubtedLines, INK_GUESSED, INK_VOUCHED, readSignsFromInk, withCircleSigns } from './ink-reading.js';
import { confidenceOf, joinFragments, lineRole, type PageItem, pageItems, piecesOf } from './page-items.js';
import { DEFAULT_MIN_CHAR_CONFIDENCE, gradeProblem } from '../../scenes/homework/arithmetic.js';
import type { CheckedItem, PageCheck } from '../../scenes/homework/types.js';
import { projectRoot } from '../paths.js';

/** An OCR line with evenly spaced characters from x, 20 px each. */
function line(text: string, x: number, y: number, confidence = 0.97): OcrLine {
  const chars = [...text].map((t, i) => ({ text: t, confidence, x0: x + 20 * i, x1: x + 20 * i + 20 }));
  return { text, confidence, minCharConfidence: confidence, box: { x, y, w: 20 * chars.length, h: 30 }, quad: [], chars, rotated180: false, detScore: 1 };
}

describe('page items from OCR lines', () => {
  it.each([
    ['口算练习 第3课', 'header'],
    ['姓名：李思雨', 'header'],
    ['二、看拼音，写词语。', 'header'],
    ['耳、精次问站。', 'header'],
    ['、直接写出得数', 'header'],
    ['1、小明有12支铅笔，送给同学3支，还剩几支？', 'question'],
    ['— 53 —', 'header'],
    ['79.709', 'signs_lost'],
    ['(22)73', 'signs_lost'],
    ['(67}2047', 'signs_lost'],
    ['45(>27', 'arithmetic'],
    ['(67}-2047', 'arithmetic'],
    ['23+45=68', 'arithmetic'],
    ['45○54', 'arithmetic'],
    ['91>75', 'arithmetic'],
    ['答：60只', 'answer'],
    ['树上有38只小鸟，又飞来22只，现在一共有几只？', 'question'],
    ['7+5=1....?', 'arithmetic'],
    ['kaixin', 'other'],
  ])('%s is %s', (text, role) => expect(lineRole(text)).toBe(role));

  it('two problems run together without a space part at the one wide gap after the first answer', () => {
    /** The parts' characters as one line read without spaces, each part `gap` px after the one before. */
    const spaced = (parts: string[], gap: number): OcrLine => {
      let x = 10;
      const chars = parts.flatMap((part) => {
        const own = line(part, x, 10).chars;
        x += 20 * part.length + gap;
        return own;
      });
      return { ...line(parts.join(''), 10, 10), chars, box: { x: 10, y: 10, w: x - gap - 10, h: 30 } };
    };
    const texts = (l: OcrLine) => piecesOf(l).map((p) => p.text.trim());
    expect(texts(spaced(['(62)+27=90', '3+5=8'], 25))).toEqual(['(62)+27=90', '3+5=8']);
    expect(texts(spaced(['21+(27)=47', '37+6×6=73'], 25))).toEqual(['21+(27)=47', '37+6×6=73']);
    expect(texts(spaced(['(68)-21=47', '61>47'], 25))).toEqual(['(68)-21=47', '61>47']);
    // Close together the line is as read (the grammar finds no one right place to cut it).
    expect(texts(spaced(['(62)+27=90', '3+5=8'], 5))).toEqual(['(62)+27=903+5=8']);
    // Two wide gaps, or one after a division's "=" — a remainder's digits with their dots lost — are not cut.
    expect(texts(spaced(['17÷5=3', '2', '8+1=9'], 25))).toEqual(['17÷5=328+1=9']);
    expect(texts(spaced(['17÷5=3', '28+1=9'], 25))).toEqual(['17÷5=328+1=9']);
  });

  it('a problem cut from its answer by the detector is joined again; separate problems are not', () => {
    const joined = joinFragments([line('23+45=', 100, 50), line('68', 240, 52), line('7×8=56', 600, 50)]);
    expect(joined.map((l) => l.text)).toEqual(['23+45=68', '7×8=56']);
    // A blank answer and the next column's problem close by: its digits are not the answer.
    expect(joinFragments([line('(15+5)-19=', 100, 50), line('14+6=20', 330, 50)]).map((l) => l.text)).toEqual(['(15+5)-19=', '14+6=20']);
    expect(joinFragments([line('(38+19)+16=', 100, 50), line('86 >68', 330, 50)]).map((l) => l.text)).toEqual(['(38+19)+16=', '86 >68']);
    // Where the next column begins (two other rows' problems begin there) stands a problem, even read as bare digits; elsewhere digits after "=" are its answer.
    const rows = [line('7+8=15', 100, 120), line('9+9=18', 330, 120), line('3+4=7', 100, 190), line('6+6=12', 330, 190)];
    expect(joinFragments([line('(38+19)+16=', 100, 50), line('8668', 330, 50), ...rows]).map((l) => l.text).slice(0, 2)).toEqual(['(38+19)+16=', '8668']);
    expect(joinFragments([line('25×40=', 100, 50), line('1000', 250, 50), ...rows]).map((l) => l.text)[0]).toBe('25×40=1000');
    expect(joinFragments([line('30+(', 100, 50), line('20)=50', 200, 50)]).map((l) => l.text)).toEqual(['30+(20)=50']);
    // A comparison's circle that went with the part after it: "22+6" | "○28".
    expect(joinFragments([line('22+6', 100, 50), line('○28', 200, 50)]).map((l) => l.text)).toEqual(['22+6○28']);
  });

  it('a second question under an answered one is a problem of its own; a question wrapped over two lines is one', () => {
    const items = pageItems([
      line('树上有30只小鸟，又飞来28只，', 50, 10),
      line('现在一共有几只？', 50, 50),
      line('58只', 50, 90),
      line('一本故事书有64页，还剩多少页没看？', 50, 130),
      line('38页', 50, 170),
    ]);
    expect(items.map((i) => [i.text, i.answer])).toEqual([
      ['树上有30只小鸟，又飞来28只，现在一共有几只？', '58只'],
      ['一本故事书有64页，还剩多少页没看？', '38页'],
    ]);
  });

  it('a question whose "？" was read as 7 is asked: the next question is a problem of its own', () => {
    const items = pageItems([line('树上有15只小鸟，又飞来30只，现在一共有几只7', 50, 10), line('：46只', 50, 50), line('小明有19支铅笔，送给同学17支，还剩几支7', 50, 90), line('：2支', 50, 130)]);
    expect(items.map((i) => [i.text, i.answer])).toEqual([
      ['树上有15只小鸟，又飞来30只，现在一共有几只7', '：46只'],
      ['小明有19支铅笔，送给同学17支，还剩几支7', '：2支'],
    ]);
  });

  it('each task line ("看拼音写词语：…") is a problem of its own', () => {
    const items = pageItems([line('看拼音写词语：tàiyáng', 50, 10), line('太阳', 50, 50), line('看拼音写词语：tiānkōng', 50, 90), line('天空', 50, 130)]);
    expect(items.map((i) => [i.text, i.answer])).toEqual([
      ['看拼音写词语：tàiyáng', '太阳'],
      ['看拼音写词语：tiānkōng', '天空'],
    ]);
  });

  it("the dots of a remainder do not count towards a problem's confidence; its digits and signs do", () => {
    const l = line('16÷5=3......1', 50, 10);
    l.chars = l.chars.map((c) => (c.text === '.' ? { ...c, confidence: 0.45 } : c));
    const [item] = pageItems([{ ...l, confidence: 0.8, minCharConfidence: 0.45 }]);
    expect(item?.confidence).toBeCloseTo(0.97);
    expect(item?.minCharConfidence).toBeCloseTo(0.97);
    // A lone dot is a decimal point and counts.
    const d = line('2.5-0.1=2.4', 50, 10);
    d.chars = d.chars.map((c) => (c.text === '.' ? { ...c, confidence: 0.45 } : c));
    expect(pageItems([{ ...d, minCharConfidence: 0.45 }])[0]?.minCharConfidence).toBeCloseTo(0.45);
  });

  it('a question keeps the answer lines under it, and headings end it', () => {
    const items = pageItems([line('三、解决问题。', 50, 10), line('树上有38只小鸟，又飞来22只，一共有几只？', 50, 50), line('答：60只', 50, 90), line('四、口算。', 50, 130), line('7×8=56', 50, 170)]);
    expect(items.map((i) => [i.text, i.answer, i.arithmetic])).toEqual([
      ['树上有38只小鸟，又飞来22只，一共有几只？', '60只', false],
      ['7×8=56', undefined, true],
    ]);
  });
});

describe('comparison signs read from their circles', () => {
  it('puts the sign at the circle, leaves a line whose sign was read alone, and makes an unread sign unsure', () => {
    const [withSign, already, unread] = withCircleSigns(
      [line('4524', 100, 50), line('91>75', 100, 150), line('3×4', 100, 250)],
      [
        { x: 140, y: 65, r: 15, sign: '<' },
        { x: 150, y: 165, r: 15, sign: '>' },
        { x: 170, y: 265, r: 15, sign: undefined },
      ],
    );
    expect(withSign?.text).toBe('45<24');
    expect(already?.text).toBe('91>75');
    expect(unread?.text).toBe('3×4○');
    expect(unread?.minCharConfidence).toBeLessThan(0.5);
  });

  it('an = the recogniser read inside a circle is the answer of a comparison, not a sum', () => {
    const [eq, sum] = withCircleSigns([line('42=24', 100, 50), line('4+2=6', 100, 150)], [{ x: 150, y: 65, r: 15, sign: undefined }]);
    expect(eq?.text).toBe('42○=24');
    expect(eq?.minCharConfidence).toBeCloseTo(0.97);
    expect(sum?.text).toBe('4+2=6');
    // What is left of the ring and reads as a bracket is not part of the problem.
    const [ring] = withCircleSigns([line('2(=)4', 100, 50)], [{ x: 150, y: 65, r: 15, sign: undefined }]);
    expect(ring?.text).toBe('2○=4');
  });

  it('a circle in the gap the detector split a problem at goes with the part before it, and the part after joins them', () => {
    // "89 ○ 23" with the empty ring painted out: read as "89" and "23", 50 px apart.
    const lines = withCircleSigns([line('89', 100, 50), line('23', 190, 50), line('7+8', 300, 50)], [{ x: 165, y: 65, r: 20, sign: '' }]);
    expect(joinFragments(lines).map((l) => l.text)).toEqual(['89○23', '7+8']);
    // A circle far from any line is nobody's.
    expect(withCircleSigns([line('89', 100, 50)], [{ x: 300, y: 65, r: 20, sign: '' }])[0]?.text).toBe('89');
  });

  it('a sign read from the circle replaces the "-" the recogniser made of it; an "=" gets its circle', () => {
    const [dash, equals, guessed] = withCircleSigns(
      [line('51-76', 100, 50), line('4276', 100, 150), line('3-4', 100, 250)],
      [
        { x: 150, y: 65, r: 15, sign: '<' },
        { x: 140, y: 165, r: 15, sign: '=' },
        { x: 130, y: 265, r: 15, sign: '>', guessed: true },
      ],
    );
    expect(dash?.text).toBe('51<76');
    expect(equals?.text).toBe('42○=76');
    expect(guessed?.text).toBe('3>4');
    // A guessed sign is less sure than one read from its shape, but sure enough to condemn.
    const guessedAt = guessed?.chars.find((c) => c.text === '>')?.confidence as number;
    expect(guessedAt).toBe(DEFAULT_MIN_CHAR_CONFIDENCE);
    expect(guessedAt).toBeLessThan(dash?.chars.find((c) => c.text === '<')?.confidence as number);
    // An "=" guessed in its circle: the circle is no guess.
    const [guessedEquals] = withCircleSigns([line('4276', 100, 150)], [{ x: 140, y: 165, r: 15, sign: '=', guessed: true }]);
    expect(guessedEquals?.chars.map((c) => [c.text, c.confidence])).toEqual(expect.arrayContaining([['○', 0.9], ['=', DEFAULT_MIN_CHAR_CONFIDENCE]]));
  });
});

describe('a ring crowded by its sign', () => {
  const ring = { x: 100, y: 25, r: 18 };
  /** "58  36": the digits 20 px wide, the gap at x 80…120. */
  const gapped = (): OcrLine => line('58  36', 40, 10);

  it('is a comparison circle where the recogniser left a gap between two numbers', () => {
    expect(circlesInGaps([gapped()], [ring])).toEqual([ring]);
    // The gap may split the line in two.
    expect(circlesInGaps([line('58', 40, 10), line('36', 120, 10)], [ring])).toEqual([ring]);
  });

  it('is the ring the recogniser read as a 0 centred on it ("58036" for 58○36); the 0 gives way to its sign', () => {
    expect(circlesInGaps([line('58036', 50, 10)], [ring])).toEqual([ring]);
    expect(circlesInGaps([line('58O36', 50, 10)], [ring])).toEqual([ring]);
    expect(withCircleSigns([line('58036', 50, 10)], [{ ...ring, sign: '>' }])[0]?.text).toBe('58>36');
    // A sign guessed in such a ring can only confirm.
    const guessed = withCircleSigns([line('58036', 50, 10)], [{ ...ring, sign: '>', guessed: true }])[0];
    expect(guessed?.chars.find((c) => c.text === '>')?.confidence).toBe(INK_GUESSED);
    // Nothing written in it: the 0 is a 0.
    expect(withCircleSigns([line('58036', 50, 10)], [{ ...ring, sign: '' }])[0]?.text).toBe('58036');
  });

  it('is a digit when a digit or a 0 off its centre was read over it, or its line has an equals or comparison sign', () => {
    expect(circlesInGaps([line('58636', 50, 10)], [ring])).toEqual([]);
    const offCentre = line('58036', 50, 10);
    offCentre.chars[2] = { ...(offCentre.chars[2] as OcrLine['chars'][number]), x0: 99, x1: 125 };
    expect(circlesInGaps([offCentre], [ring])).toEqual([]);
    expect(circlesInGaps([line('58', 40, 10), line('=36', 120, 10)], [ring])).toEqual([]);
    expect(circlesInGaps([line('58  >6', 40, 10)], [ring])).toEqual([]);
    // Numbers far from it are not its sides.
    expect(circlesInGaps([line('58', 0, 10), line('36', 200, 10)], [ring])).toEqual([]);
    // Not on the line's row.
    expect(circlesInGaps([gapped()], [{ ...ring, y: 90 }])).toEqual([]);
  });
});

describe('a comparison whose circle was lost entirely', () => {
  it('two numbers far apart become an unread comparison; an ordinary number does not', () => {
    const gapped = line('9175', 100, 50);
    gapped.chars[2] = { ...(gapped.chars[2] as OcrLine['chars'][number]), x0: 190, x1: 210 };
    gapped.chars[3] = { ...(gapped.chars[3] as OcrLine['chars'][number]), x0: 210, x1: 230 };
    const items = pageItems([line('2024', 100, 10), gapped]);
    expect(items.map((i) => i.text)).toEqual(['91○75']);
    expect(items[0]?.minCharConfidence).toBeLessThan(0.5);
  });

  it('a run of digits among the problems is a problem whose signs were lost; above them, or under a question, it is not', () => {
    const items = pageItems([line('2024.11.25', 50, 10), line('7×8=56', 50, 50), line('79.709', 50, 90), line('12', 50, 130), line('树上有38只小鸟，又飞来22只，一共有几只？', 50, 170), line('6000', 50, 210)]);
    expect(items.map((i) => [i.text, i.arithmetic, i.answer])).toEqual([
      ['7×8=56', true, undefined],
      ['79.709', true, undefined],
      ['树上有38只小鸟，又飞来22只，一共有几只？', false, '6000'],
    ]);
  });
});

describe('a printed sign the recogniser dropped from a comparison', () => {
  /** "<left> ○ <right>" on paper, the circle (painted out) at x 157: digits as bold 0s 16×26 px, 20 px apart; "x" a small cross. */
  function printed(left: string, right: string) {
    const m = new cv.Mat(60, 300, cv.CV_8UC3, [255, 255, 255]);
    const ink = new cv.Vec3(30, 30, 30);
    const draw = (text: string, x0: number) => [...text].forEach((ch, i) => {
      const x = x0 + 20 * i;
      if (ch === 'x') {
        m.drawLine(new cv.Point2(x - 5, 25), new cv.Point2(x + 5, 35), ink, 3);
        m.drawLine(new cv.Point2(x - 5, 35), new cv.Point2(x + 5, 25), ink, 3);
      } else m.drawEllipse(new cv.RotatedRect(new cv.Point2(x, 30), new cv.Size(16, 26), 0), ink, 3);
    });
    draw(left, 135 - 20 * (left.length - 1));
    draw(right, 180);
    return m;
  }
  const circle = { x: 157, y: 30, r: 14 };
  const item = (text: string) => ({ ...line(text, 10, 5), box: { x: 10, y: 5, w: 280, h: 50 }, arithmetic: true });
  const graded = (question: string) => ({ question, student_answer: '<', correct_answer: '>', verdict: 'incorrect' as const, confidence: 0.97, kind: 'compare' as const });

  it('"9x6" read as "96" is wider than two digits; a real "96" is not', () => {
    // 0.8 of its height per digit or more is a lost sign ("7×2" read as "72" measured 0.85).
    const wide = (gap: number) => {
      const m = new cv.Mat(60, 300, cv.CV_8UC3, [255, 255, 255]);
      for (const x of [100, 100 + gap]) m.drawEllipse(new cv.RotatedRect(new cv.Point2(x, 30), new cv.Size(16, 26), 0), new cv.Vec3(30, 30, 30), 3);
      return m;
    };
    // Ink 29 px tall: two digits 49 px wide (0.84 a digit) lost a sign; 41 px (0.71) did not.
    expect(comparisonMisread(wide(30), item('72<15'), graded('72○15'), [circle])).toBe(true);
    expect(comparisonMisread(wide(22), item('72<15'), graded('72○15'), [circle])).toBe(false);
    expect(comparisonMisread(printed('9x6', '55'), item('96<55'), graded('96○55'), [circle])).toBe(true);
    expect(comparisonMisread(printed('96', '55'), item('96<55'), graded('96○55'), [circle])).toBe(false);
  });

  it('two bare numbers two or more digits apart in length lost a sign between them (24+35 read as 2435)', () => {
    expect(comparisonMisread(printed('2435', '60'), item('2435<60'), graded('2435○60'), [])).toBe(true);
    expect(comparisonMisread(printed('100', '99'), item('100>99'), graded('100○99'), [])).toBe(false);
  });

  it('is right when the child\'s sign is right whichever operator stood between the two digits, never wrong for it', () => {
    const right = rightWhateverTheSign(printed('7x2', '15'), item('72<15'), graded('72○15'), [circle]);
    expect(right).toMatchObject({ verdict: 'correct', correct_answer: '<', reason: 'right_whatever_the_lost_sign' });
    // ">" is wrong whichever operator stood there: still never condemned for it.
    expect(rightWhateverTheSign(printed('7x2', '15'), item('72>15'), { ...graded('72○15'), student_answer: '>' }, [circle])).toBeUndefined();
    // 7+2 < 10 but 7×2 > 10: the lost operator matters.
    expect(rightWhateverTheSign(printed('7x2', '10'), item('72<10'), graded('72○10'), [circle])).toBeUndefined();
    // A subtraction below zero is not a reading: 5+7, 5×7 and 5÷7 are all less than 7×6.
    expect(rightWhateverTheSign(printed('5x7', '7x6'), item('57<7×6'), graded('57○7×6'), [circle])?.verdict).toBe('correct');
    // A real two-digit number, or a side of three digits: no lost sign to read every way.
    expect(rightWhateverTheSign(printed('72', '15'), item('72<15'), graded('72○15'), [circle])).toBeUndefined();
    expect(rightWhateverTheSign(printed('1x2x', '15'), item('122<15'), graded('122○15'), [circle])).toBeUndefined();
  });

  it('only sides read as bare numbers are measured, and only with the circle found', () => {
    expect(comparisonMisread(printed('9x6', '55'), item('9×6<55'), graded('9×6○55'), [circle])).toBe(false);
    expect(comparisonMisread(printed('9x6', '55'), item('96<55'), graded('96○55'), [])).toBe(false);
  });
});

/** A classifier that answers `sign` at `p` for every window, and records that it was asked. */
const says = (sign: OperatorSign, p: number) => {
  const asked: number[] = [];
  return { asked, classify: (x: ArrayLike<number>) => (asked.push(x.length), { sign, p, sure: p >= 0.99 }) };
};

describe('an = the recogniser read as 元, 年 or m', () => {
  const paper = new cv.Mat(100, 400, cv.CV_8UC3, [255, 255, 255]);

  it('is put back between digits after an operator, as a doubtful character', () => {
    const fixed = readSignsFromInk(paper, line('64+29元93', 10, 10));
    expect(fixed.text).toBe('64+29=93');
    expect(fixed.minCharConfidence).toBeLessThan(0.5);
    expect(fixed.minCharConfidence).toBeGreaterThanOrEqual(0.3);
    // Also with a space read before the answer.
    expect(readSignsFromInk(paper, line('27÷4m 6...3', 10, 10)).text).toBe('27÷4= 6...3');
  });

  it('is read, not guessed, when the operator-shape classifier is sure of an "=" there too', () => {
    const page = inked('64+29=93', 10, 10, 1);
    const eq = (shapes: ReturnType<typeof says>) => readSignsFromInk(page, line('64+29元93', 10, 10), shapes).chars[5];
    expect(eq(says('=', 0.999))).toMatchObject({ text: '=', confidence: 0.999 });
    expect(eq(says('=', 0.98))).toMatchObject({ text: '=', confidence: INK_GUESSED });
    expect(eq(says('-', 0.999))).toMatchObject({ text: '=', confidence: INK_GUESSED });
  });

  it('is left alone in a line that has an = or no operator (a price, 4元6角)', () => {
    expect(readSignsFromInk(paper, line('4元6角+2角=4元8角', 10, 10)).text).toBe('4元6角+2角=4元8角');
    expect(readSignsFromInk(paper, line('4元6角', 10, 10)).text).toBe('4元6角');
  });
});

/**
 * A printed line drawn in the cells of `line()` (20 px per character, the line box 30 px high
 * at y): digits as bold 0s, "=" two bars, "-" a short bar, "+" a cross.
 */
function inked(text: string, x: number, y: number, blur: number, penFrom = Infinity) {
  const m = new cv.Mat(y + 60, x + 20 * text.length + 40, cv.CV_8UC3, [255, 255, 255]);
  const p = (px: number, py: number) => new cv.Point2(px, py);
  const mid = y + 15;
  [...text].forEach((ch, i) => {
    // Print is grey-black; from `penFrom` on the child wrote in blue (BGR).
    const ink = i >= penFrom ? new cv.Vec3(170, 70, 40) : new cv.Vec3(30, 30, 30);
    const cx = x + 20 * i + 10;
    if (/\d/.test(ch)) m.drawEllipse(new cv.RotatedRect(p(cx, mid), new cv.Size(12, 22), 0), ink, 3);
    if (ch === '=') for (const dy of [-4, 4]) m.drawLine(p(cx - 6, mid + dy), p(cx + 6, mid + dy), ink, 2);
    if (ch === '-') m.drawLine(p(cx - 3, mid + 1), p(cx + 3, mid + 1), ink, 2);
    // A minus blurred to a dot (\` a faint one), and a decimal point at the digits' foot.
    if (ch === '~') m.drawCircle(p(cx, mid + 1), 2, ink, -1);
    if (ch === '`') m.drawCircle(p(cx, mid + 1), 2, new cv.Vec3(125, 125, 125), -1);
    if (ch === '.') m.drawCircle(p(cx, mid + 10), 2, ink, -1);
    if (ch === '+') {
      m.drawLine(p(cx - 6, mid), p(cx + 6, mid), ink, 2);
      m.drawLine(p(cx, mid - 6), p(cx, mid + 6), ink, 2);
    }
    if (ch === '×') for (const d of [-6, 6]) m.drawLine(p(cx - 6, mid - d), p(cx + 6, mid + d), ink, 2);
    if (ch === '÷') {
      m.drawLine(p(cx - 6, mid), p(cx + 6, mid), ink, 2);
      for (const dy of [-6, 6]) m.drawCircle(p(cx, mid + dy), 2, ink, -1);
    }
  });
  return blur > 0 ? m.gaussianBlur(new cv.Size(0, 0), blur) : m;
}

describe('an = the recogniser lost, found in the ink', () => {
  it('read as a digit whose bars no shape measure finds ("6×9054"), it is put back as a guess where the classifier is sure of an "=" at one place only', () => {
    const page = inked('6×9054', 10, 10, 1.5);
    const read = line('6×9054', 10, 10);
    // The classifier's answers in the order it is asked: the characters between digits after the operator, left to right, then the ×.
    const answers = (...signs: OperatorSign[]) => ({ classify: () => ({ sign: signs.shift() ?? '×', p: 0.999, sure: true }) });
    const fixed = readSignsFromInk(page, read, answers('=', '÷'));
    expect(fixed.text).toBe('6×9=54');
    expect(fixed.chars[3]).toMatchObject({ text: '=', confidence: INK_GUESSED });
    expect(readSignsFromInk(page, read, answers('=', '=')).text).toBe('6×9054');
    expect(readSignsFromInk(page, read, { classify: () => ({ sign: '=', p: 0.98, sure: false }) }).text).toBe('6×9054');
  });

  it.each([0, 1.5])('read as "-" ("8+9-7") it is put back where the ink has an = (blur %s), as a doubtful character', (blur) => {
    const fixed = readSignsFromInk(inked('8+9=7', 10, 10, blur), line('8+9-7', 10, 10));
    expect(fixed.text).toBe('8+9=7');
    expect(fixed.minCharConfidence).toBeLessThan(0.5);
    expect(fixed.minCharConfidence).toBeGreaterThanOrEqual(0.3);
  });

  it.each(['a', '折', '~', '±'])('read as "%s" ("14-7a7") it is put back where the ink has an =, as a doubtful character', (lookalike) => {
    const fixed = readSignsFromInk(inked('14-7=7', 10, 10, 1.5), line(`14-7${lookalike}7`, 10, 10));
    expect(fixed.text).toBe('14-7=7');
    expect(fixed.minCharConfidence).toBeLessThan(0.5);
    // Without an equals-shaped mark in the ink it stays as read.
    expect(readSignsFromInk(inked('14-747', 10, 10, 1.5), line(`14-7${lookalike}7`, 10, 10)).text).toBe(`14-7${lookalike}7`);
  });

  it('dropped ("9+1019") it goes between the digits it stands between', () => {
    const read = line('9+10=19', 10, 10);
    read.chars.splice(4, 1);
    const fixed = readSignsFromInk(inked('9+10=19', 10, 10, 1), { ...read, text: '9+1019' });
    expect(fixed.text).toBe('9+10=19');
    expect(fixed.chars.map((c) => c.text).join('')).toBe('9+10=19');
  });

  it('dropped at the end of an unanswered problem ("22÷5"), it goes after the last digit where the ink has an =', () => {
    const fixed = readSignsFromInk(inked('22÷5=', 10, 10, 1), line('22÷5', 10, 10));
    expect(fixed.text).toBe('22÷5=');
    expect(fixed.chars.at(-1)).toMatchObject({ text: '=' });
    expect((fixed.chars.at(-1)?.x0 ?? 0) + 1).toBeGreaterThan(10 + 20 * 4);
    // Bare paper after the last digit, or a second operator there: as read.
    expect(readSignsFromInk(inked('22÷5', 10, 10, 1), line('22÷5', 10, 10)).text).toBe('22÷5');
    expect(readSignsFromInk(inked('22÷5-', 10, 10, 1), line('22÷5', 10, 10)).text).toBe('22÷5');
    // Not in a line with units: the last 元 of "5元+3元-8元" is one.
    expect(readSignsFromInk(new cv.Mat(100, 400, cv.CV_8UC3, [255, 255, 255]), line('5元+3元-8元', 10, 10)).text).toBe('5元+3元-8元');
    // Read as m after the last digit ("9×2m"), as a doubtful character.
    const m = readSignsFromInk(new cv.Mat(100, 400, cv.CV_8UC3, [255, 255, 255]), line('9×2m', 10, 10));
    expect(m.text).toBe('9×2=');
    expect(m.chars[3]).toMatchObject({ text: '=', confidence: INK_GUESSED });
  });

  it.each(['*', '#', '-'])('read as "%s" at the end of an unanswered problem ("36+4*") it is put back where the ink has an =, or the classifier is sure of one', (sign) => {
    const fixed = readSignsFromInk(inked('36+4=', 10, 10, 1.5), line(`36+4${sign}`, 10, 10));
    expect(fixed.text).toBe('36+4=');
    expect(fixed.minCharConfidence).toBeLessThan(0.5);
    // A mark no shape measure takes for an "=" (a short upright): only the classifier can say so.
    const upright = inked('36+4', 10, 10, 0);
    upright.drawLine(new cv.Point2(100, 19), new cv.Point2(100, 31), new cv.Vec3(30, 30, 30), 2);
    const blurred = upright.gaussianBlur(new cv.Size(0, 0), 1.5);
    expect(readSignsFromInk(blurred, line(`36+4${sign}`, 10, 10), { classify: () => ({ sign: '=', p: 0.99, sure: true }) }).text).toBe('36+4=');
    expect(readSignsFromInk(blurred, line(`36+4${sign}`, 10, 10), { classify: () => ({ sign: '+', p: 0.99, sure: true }) }).text).not.toBe('36+4=');
    expect(readSignsFromInk(blurred, line(`36+4${sign}`, 10, 10)).text).toBe(`36+4${sign}`);
  });

  it('a last digit stays a digit where the ink has an = over it ("12+30")', () => {
    expect(readSignsFromInk(inked('12+3=', 10, 10, 1), line('12+30', 10, 10)).text).toBe('12+30');
  });

  it.each(['×', '+', '#', '0'])('read as "%s" after the operator ("24+11×35") it is put back where the ink has an =', (sign) => {
    const fixed = readSignsFromInk(inked('24+11=35', 10, 10, 1.5), line(`24+11${sign}35`, 10, 10));
    expect(fixed.text).toBe('24+11=35');
    expect(fixed.minCharConfidence).toBeLessThan(0.5);
  });

  it('a second real operator stays as read', () => {
    for (const blur of [0, 1, 1.5]) expect(readSignsFromInk(inked('12+3+4', 10, 10, blur), line('12+3+4', 10, 10)).text).toBe('12+3+4');
  });

  it('a real minus stays a minus, and a line without an = in its ink stays as read', () => {
    expect(readSignsFromInk(inked('12-3-4', 10, 10, 1), line('12-3-4', 10, 10)).text).toBe('12-3-4');
    const read = line('9+1019', 10, 10);
    expect(readSignsFromInk(inked('9+1019', 10, 10, 1), read).text).toBe('9+1019');
    // A real 0 after the operator is a digit.
    for (const blur of [0, 1, 1.5]) expect(readSignsFromInk(inked('24+11035', 10, 10, blur), line('24+11035', 10, 10)).text).toBe('24+11035');
    // An equals-shaped mark left of everything the recogniser read.
    const after = line('9+1019', 30, 10);
    expect(readSignsFromInk(inked('=9+1019', 10, 10, 1), { ...after, box: { ...after.box, x: 10, w: 140 } }).text).toBe('9+1019');
  });

  it('an "=" put back or vouched for is read, not doubtful, when it is print in a line whose answer is in blue', () => {
    const shaky = (text: string): OcrLine => {
      const l = line(text, 10, 10);
      const at = text.indexOf('=');
      l.chars[at] = { ...(l.chars[at] as OcrLine['chars'][number]), confidence: 0.2 };
      return l;
    };
    // Blue answer, printed "=": read (INK_VOUCHED), so a wrong answer can be called wrong.
    expect(readSignsFromInk(inked('45+10=65', 10, 10, 1, 6), shaky('45+10=65')).chars[5]?.confidence).toBe(INK_VOUCHED);
    expect(readSignsFromInk(inked('45+10=65', 10, 10, 1, 6), line('45+10m65', 10, 10)).chars[5]).toMatchObject({ text: '=', confidence: INK_VOUCHED });
    // A pencil answer tells print from pen by nothing: doubtful, as is an "=" in the pen's blue.
    expect(readSignsFromInk(inked('45+10=65', 10, 10, 1), shaky('45+10=65')).chars[5]?.confidence).toBe(INK_GUESSED);
    expect(readSignsFromInk(inked('45+10=65', 10, 10, 1, 5), shaky('45+10=65')).chars[5]?.confidence).toBe(INK_GUESSED);
  });

  it('an "=" the recogniser hardly believed in is vouched for by the ink, up to a doubtful character', () => {
    const read = line('28+4=7', 10, 10);
    read.chars[4] = { ...(read.chars[4] as OcrLine['chars'][number]), confidence: 0.25 };
    const vouched = readSignsFromInk(inked('28+4=7', 10, 10, 1), { ...read, minCharConfidence: 0.25 });
    expect(vouched.minCharConfidence).toBeGreaterThanOrEqual(0.3);
    expect(vouched.minCharConfidence).toBeLessThan(0.5);
    // Where the ink has no "=", the doubt stays.
    expect(readSignsFromInk(inked('28+4-7', 10, 10, 1), { ...read, minCharConfidence: 0.25 }).minCharConfidence).toBe(0.25);
  });
});

describe('a × whose ink is a cross of diagonals', () => {
  const weak = (text: string, runnerUp: string): OcrLine => {
    const read = line(text, 10, 10);
    read.chars[1] = { ...(read.chars[1] as OcrLine['chars'][number]), confidence: 0.3, runnerUp };
    return { ...read, minCharConfidence: 0.3 };
  };

  it('is sure, and vouched for when the recogniser doubted only how it is written (× or x)', () => {
    const page = inked('2×8=17', 10, 10, 1);
    const vouched = readSignsFromInk(page, weak('2×8=17', 'x'));
    expect(vouched.chars[1]).toMatchObject({ text: '×', confidence: INK_VOUCHED, sure: true });
    expect(vouched.minCharConfidence).toBe(INK_VOUCHED);
    expect(readSignsFromInk(page, weak('2x8=17', '×')).chars[1]).toMatchObject({ confidence: INK_VOUCHED, sure: true });
    // Its doubt was another operator: a blurred + fills the corners of its box too.
    expect(readSignsFromInk(page, weak('2×8=17', '+')).chars[1]).toMatchObject({ confidence: 0.3, sure: true });
    // Its doubt was no operator ("7×6=42", the × second to 元): a guess, enough to confirm a right answer.
    expect(readSignsFromInk(page, weak('2×8=17', '元')).chars[1]).toMatchObject({ confidence: INK_GUESSED, sure: true });
    // A + in the ink is no cross of diagonals.
    const plus = readSignsFromInk(inked('2+8=17', 10, 10, 1), weak('2×8=17', 'x')).chars[1];
    expect(plus).toMatchObject({ confidence: 0.3 });
    expect(plus).not.toHaveProperty('sure');
  });
});

describe('a minus read as a point', () => {
  it('is a minus when its ink sits at the middle of the digits, before the "="', () => {
    const fixed = readSignsFromInk(inked('40~4=36', 10, 10, 1), line('40.4=36', 10, 10));
    expect(fixed.text).toBe('40-4=36');
    expect(fixed.minCharConfidence).toBeLessThan(0.5);
    // Beside another operator too ("8×9-29=43" read as "8×9.29=43" was marked wrong).
    expect(readSignsFromInk(inked('8+9~29=43', 10, 10, 1), line('8+9.29=43', 10, 10)).text).toBe('8+9-29=43');
    // A point at the digits' foot is a decimal point.
    expect(readSignsFromInk(inked('40.4=36', 10, 10, 1), line('40.4=36', 10, 10)).text).toBe('40.4=36');
    expect(readSignsFromInk(inked('1.5+1=2.5', 10, 10, 1), line('1.5+1=2.5', 10, 10)).text).toBe('1.5+1=2.5');
  });

  it('is found when blur left it fainter than the digits', () => {
    expect(readSignsFromInk(inked('79`13=66', 10, 10, 1), line('79.13=66', 10, 10)).text).toBe('79-13=66');
  });

  it('keeps the point as its second choice: wrong only if wrong with the point and as every operator', () => {
    const graded = (text: string) => {
      const fixed = readSignsFromInk(inked(text.replace('.', '~'), 10, 10, 1), line(text, 10, 10));
      const [item] = pageItems([fixed]);
      expect(item?.chars?.[text.indexOf('.')]).toMatchObject({ text: '-', runnerUp: '.' });
      return gradeProblem({ text: item?.text ?? '', confidence: item?.confidence ?? 0, minCharConfidence: item?.minCharConfidence, weakChars: weakCharsOf(item as PageItem) });
    };
    expect(graded('40.4=35')).toMatchObject({ question: '40-4=', verdict: 'incorrect' });
    // Right as a decimal: "10.5+1=11.5" with its point taken for a minus; right without it: a
    // speck at mid-height in "3+105=108".
    expect(graded('10.5+1=11.5')).toMatchObject({ verdict: 'uncertain' });
    expect(graded('3+10.5=108')).toMatchObject({ verdict: 'uncertain' });
  });
});

describe('a remainder\'s dots read as one point or dropped', () => {
  const paper = new cv.Mat(100, 400, cv.CV_8UC3, [255, 255, 255]);
  const farApart = (text: string): OcrLine => {
    const l = line(text, 10, 10);
    const last = l.chars.length - 1;
    l.chars[last] = { ...(l.chars[last] as OcrLine['chars'][number]), x0: 20 * last + 40, x1: 20 * last + 60 };
    return l;
  };

  it('dropped: answer digits far apart in a division have the dots between them, as a doubtful character', () => {
    const fixed = readSignsFromInk(paper, farApart('10÷3=31'));
    expect(fixed.text).toBe('10÷3=3……1');
    expect(fixed.chars.map((c) => c.text)).toEqual(['1', '0', '÷', '3', '=', '3', '……', '1']);
    expect(fixed.minCharConfidence).toBeLessThan(0.5);
    // Not in a sum without a division, nor between digits written close together.
    expect(readSignsFromInk(paper, farApart('10+3=31')).text).toBe('10+3=31');
    expect(readSignsFromInk(paper, line('96÷3=32', 10, 10)).text).toBe('96÷3=32');
  });

  it('digits far apart around the point are "……"; a decimal point keeps its digits close', () => {
    const far = line('45÷6=7.3', 10, 10);
    far.chars[7] = { ...(far.chars[7] as OcrLine['chars'][number]), x0: 190, x1: 210 };
    expect(readSignsFromInk(paper, far).text).toBe('45÷6=7……3');
    expect(readSignsFromInk(paper, line('0.5+0.8=1.3', 10, 10)).text).toBe('0.5+0.8=1.3');
  });

  it('a lost remainder\'s digit is cut to its own ink, and the ink tells whether dots stand before it', () => {
    // A slot 120×40 at (100, 20) after the quotient, line height 30; the digit drawn at x0…x0+12, raised.
    const slot = { x: 100, y: 20, w: 120, h: 40 };
    const page = (draw: (m: Mat) => void) => {
      const m = new cv.Mat(100, 300, cv.CV_8UC3, [255, 255, 255]);
      draw(m);
      return m;
    };
    const digitAt = (m: Mat, x0: number) => m.drawRectangle(new cv.Point2(x0, 24), new cv.Point2(x0 + 12, 48), new cv.Vec3(160, 60, 30), 3);
    const dots = (m: Mat, from: number, to: number, joined = false) => {
      if (joined) m.drawLine(new cv.Point2(from, 50), new cv.Point2(to, 50), new cv.Vec3(160, 60, 30), 3);
      else for (let x = from; x < to; x += 8) m.drawCircle(new cv.Point2(x, 50), 1, new cv.Vec3(160, 60, 30), -1);
    };
    const spaced = remainderDigit(page((m) => (dots(m, 104, 150), digitAt(m, 160))), slot, 30);
    expect(spaced?.dotsSeen).toBe(true);
    // The box holds the digit (x 158…174) and none of the dots, padded by 0.3 line heights.
    expect(spaced?.box.x).toBeGreaterThanOrEqual(158 - 10);
    expect(spaced?.box.x).toBeLessThan(158);
    expect((spaced?.box.x ?? 0) + (spaced?.box.w ?? 0)).toBeLessThanOrEqual(174 + 10);
    // Dots joined by blur into one bar at the digit's foot: the digit is cut out of it.
    const joined = remainderDigit(page((m) => (dots(m, 104, 162, true), digitAt(m, 160))), slot, 30);
    expect(joined?.dotsSeen).toBe(true);
    expect(joined?.box.x).toBeGreaterThan(140);
    // A digit right after the quotient, with nothing before it: no dots.
    expect(remainderDigit(page((m) => digitAt(m, 106)), slot, 30)?.dotsSeen).toBe(false);
    expect(remainderDigit(page(() => {}), slot, 30)).toBeUndefined();
    // A 1's upright is narrow enough for a 1 alone; the boxy digit (15 of 27 px wide) is not.
    expect(spaced?.narrow).toBe(false);
    const one = remainderDigit(page((m) => (dots(m, 104, 150), m.drawLine(new cv.Point2(164, 24), new cv.Point2(166, 48), new cv.Vec3(160, 60, 30), 3))), slot, 30);
    expect(one?.narrow).toBe(true);
    expect(one?.dotsSeen).toBe(true);
  });

  it('an answer read as two digits far apart in its slot lost the dots between them; a number\'s digits stand close', () => {
    // A slot 120×40 at (100, 20), line height 30; digits 12 px wide, read with cells meeting halfway.
    const slot = { x: 100, y: 20, w: 120, h: 40 };
    const page = (...xs: number[]) => {
      const m = new cv.Mat(100, 300, cv.CV_8UC3, [255, 255, 255]);
      for (const x0 of xs) m.drawRectangle(new cv.Point2(x0, 24), new cv.Point2(x0 + 12, 48), new cv.Vec3(160, 60, 30), 3);
      return m;
    };
    const read = (...centres: number[]) => centres.map((c, i) => ({ text: '1', confidence: 0.9, x0: i ? (c + (centres[i - 1] as number)) / 2 : c - 10, x1: i < centres.length - 1 ? (c + (centres[i + 1] as number)) / 2 : c + 10 }));
    // 1……1 with the dots lost: 30 px of paper (one line height) between the digits.
    expect(dotsLostBetween(page(106, 148), slot, read(112, 154), 30)).toBe(1);
    expect(dotsLostBetween(page(106, 122, 164), slot, read(112, 128, 170), 30)).toBe(2);
    // 11: the digits 4 px apart.
    expect(dotsLostBetween(page(106, 122), slot, read(112, 128), 30)).toBeUndefined();
    // Further apart than a remainder's dots leave: another problem's digit.
    expect(dotsLostBetween(page(106, 190), slot, read(112, 196), 30)).toBeUndefined();
    // Two digits after the gap: no remainder of a one-digit divisor, maybe the next problem's.
    expect(dotsLostBetween(page(106, 148, 164), slot, read(112, 154, 170), 30)).toBeUndefined();
    // One digit, or something that is no digit.
    expect(dotsLostBetween(page(106, 148), slot, read(112), 30)).toBeUndefined();
    expect(dotsLostBetween(page(106, 148), slot, [...read(112, 154).slice(0, 1), { text: '.', confidence: 0.9, x0: 130, x1: 170 }], 30)).toBeUndefined();
  });

  it('a remainder may be lost after a division that is not even, or after a + whose answer is the quotient', () => {
    expect(unevenDivision('17÷6=2')).toBe(true);
    expect(unevenDivision('17÷6=2.')).toBe(true);
    expect(unevenDivision('18÷6=3')).toBe(false);
    // 17+6=2: only a ÷ makes 2; 17+6=23 is a sum, 17+6=3 neither.
    expect(unevenDivision('17+6=2')).toBe(true);
    expect(unevenDivision('17+6=23')).toBe(false);
    expect(unevenDivision('17+6=3')).toBe(false);
    expect(unevenDivision('18+6=3')).toBe(false);
    expect(unevenDivision('(1+17)+6=2')).toBe(false);
    expect(unevenDivision('17-6=2')).toBe(false);
  });

  it('a remainder\'s digit unread in its slot is taken from its problem read again only after the same quotient and dots', () => {
    const answer = (text: string) => [...text].map((t, i) => ({ text: t, confidence: 0.9, x0: 20 * i, x1: 20 * i + 20 }));
    expect(remainderAfter('16÷5=3', answer('3……1'))).toMatchObject({ text: '1', x0: 60 });
    expect(remainderAfter('16÷5=3……', answer('3...1'))).toMatchObject({ text: '1' });
    expect(remainderAfter('16÷5=3.', answer('3.1'))).toMatchObject({ text: '1' });
    // Another quotient, no dots, more than one digit after them, or no division: nothing.
    expect(remainderAfter('16÷5=3', answer('2……1'))).toBeUndefined();
    expect(remainderAfter('16÷5=3', answer('31'))).toBeUndefined();
    expect(remainderAfter('16÷5=3', answer('3……12'))).toBeUndefined();
    expect(remainderAfter('16+5=3', answer('3……1'))).toBeUndefined();
  });
});

describe('lines the flattened page may have spoilt', () => {
  const tilted = (deg: number, y = 10): OcrLine => {
    const l = line('7+0.9=15', 10, y);
    const t = Math.tan((deg * Math.PI) / 180) * 160;
    return { ...l, quad: [[10, y], [170, y + t], [170, y + 30 + t], [10, y + 30]] };
  };
  const doubted = (l: OcrLine | undefined) => (l?.minCharConfidence ?? 1) < 0.5;

  it('a tilted line can confirm a right answer but not condemn one; a level line keeps its confidence', () => {
    const [bad, ...level] = doubtedLines([tilted(12), ...[50, 90, 130, 170, 210].map((y) => tilted(2, y))], 500);
    expect(doubted(bad)).toBe(true);
    expect(bad?.minCharConfidence).toBeGreaterThanOrEqual(0.3);
    expect(level.some(doubted)).toBe(false);
    // The lowered confidence stays with the problems cut from the line.
    expect(pageItems([bad as OcrLine])[0]?.minCharConfidence).toBeLessThan(0.5);
    const [two] = doubtedLines([{ ...tilted(12), ...line('7+8=15 6+3=9', 10, 10), quad: (bad as OcrLine).quad }], 500);
    const items = pageItems([two as OcrLine]);
    expect(items.map((i) => i.text)).toEqual(['7+8=15', '6+3=9']);
    expect(items.every((i) => i.minCharConfidence < 0.5)).toBe(true);
  });

  it('a line running into the side of the page may have lost what was beyond it', () => {
    const [cut, inside] = doubtedLines([line('5+26=71', 1, 10), line('5+26=71', 300, 50)], 1000);
    expect(doubted(cut)).toBe(true);
    expect(doubted(inside)).toBe(false);
    expect(doubted(doubtedLines([line('5+26=71', 860, 10)], 1000)[0])).toBe(true);
    // Its remainder's dots guessed from the ink do not make it one the grader may condemn: "3+2=6……1"
    // cut from "13÷2=6……1" is not wrong as 3÷2.
    const dotted = line('3+2=6.1', 1, 10);
    dotted.chars[5] = { text: '……', confidence: INK_GUESSED, x0: 101, x1: 121 };
    const [edge] = doubtedLines([{ ...dotted, text: '3+2=6……1', minCharConfidence: INK_GUESSED }], 1000);
    const [item] = pageItems([edge as OcrLine]);
    expect(weakCharsOf(item as PageItem)).toBeUndefined();
  });

  it('on a page where many lines are tilted, the level ones are doubted too', () => {
    const lines = doubtedLines([tilted(12), tilted(9, 50), tilted(1, 90), tilted(0, 130)], 500);
    expect(lines.every(doubted)).toBe(true);
  });
});

describe('weak characters handed to the grader', () => {
  /** A piece read as `text`, every character sure except those given as [index, confidence, runnerUp]. */
  function piece(text: string, weak: [number, number, string?][], minCharConfidence?: number) {
    const chars: OcrLine['chars'] = [...text].map((t, i) => ({ text: t, confidence: 0.97, runnerUp: '1', x0: 20 * i, x1: 20 * i + 20 }));
    for (const [i, confidence, runnerUp] of weak) chars[i] = { ...(chars[i] as OcrLine['chars'][number]), confidence, runnerUp };
    return { text, confidence: 0.9, minCharConfidence: minCharConfidence ?? confidenceOf(chars).minCharConfidence, box: { x: 0, y: 0, w: 20 * chars.length, h: 30 }, chars };
  }

  it('lists the characters under the minimum by their place in the text, with second choices', () => {
    expect(weakCharsOf(piece('50-12=48', [[5, 0.35, '~'], [6, 0.45, '9']]))).toEqual([{ at: 5, runnerUp: '~' }, { at: 6, runnerUp: '9' }]);
    // A remainder's dots do not count.
    expect(weakCharsOf(piece('16÷5=3..1', [[6, 0.3, '1']]))).toEqual([]);
  });

  it('hands over a remainder\'s dots the ink guessed, as one character at their place in the text', () => {
    const read = piece('58÷8=6.10', []);
    const chars = read.chars.map((c, i) => (i === 6 ? { text: '……', confidence: INK_GUESSED, x0: c.x0, x1: c.x1 } : c));
    expect(weakCharsOf({ ...read, text: '58÷8=6……10', chars, minCharConfidence: INK_GUESSED })).toEqual([{ at: 6 }]);
    // A weak digit after the dots is found at its own place in the text, two on for the dots:
    // 54÷14=3……12 read with its last digit weak, "3……11", is read again as "3……12".
    const after = piece('54÷14=3.11', [[9, 0.4, '2']]);
    const dotted = after.chars.map((c, i) => (i === 7 ? { text: '……', confidence: INK_GUESSED, x0: c.x0, x1: c.x1 } : c));
    expect(weakCharsOf({ ...after, text: '54÷14=3……11', chars: dotted, minCharConfidence: INK_GUESSED })).toEqual([{ at: 7 }, { at: 10, runnerUp: '2' }]);
  });

  it('gives none when the doubt is elsewhere: a character the ink guessed, or a confidence lowered for the whole piece', () => {
    // An "=" or a sign the ink put where the recogniser read nothing: a circle's sign read as "="
    // in "57+4○51" would condemn a right ">". (A minus put where it read a point keeps the point
    // as its second choice: see 'a minus read as a point'.)
    expect(weakCharsOf(piece('79-13=66', [[2, 0.4, undefined]]))).toBeUndefined();
    expect(weakCharsOf(piece('57+4=51', [[4, 0.4, undefined]]))).toBeUndefined();
    expect(weakCharsOf(piece('50-12=48', [[5, 0.35, '~']], 0.2))).toBeUndefined();
  });

  it('hands over a sign put back beside a bracket: wrong only when wrong as every operator', () => {
    /** "(A)-B=C" with its "-" put back by the ink (where the recogniser read nothing). */
    const putBack = (text: string) => {
      const read = piece(text, []);
      const chars = read.chars.map((c, i) => (i === 4 ? { text: '-', confidence: INK_GUESSED, x0: c.x0, x1: c.x1, someSign: true as const } : c));
      return { ...read, chars, minCharConfidence: INK_GUESSED, arithmetic: true };
    };
    expect(weakCharsOf(putBack('(95)-31=65'))).toEqual([{ at: 4 }]);
    // 95 is wrong as (95)-31, (95)+31, (95)×31 and (95)÷31.
    expect(gradeWithSigns(putBack('(95)-31=65'), false)).toMatchObject({ verdict: 'incorrect', student_answer: '95' });
    // 41 is wrong as (41)-4=45 but right as (41)+4=45: the sign decides.
    expect(gradeWithSigns(putBack('(41)-4=45'), false)).toMatchObject({ verdict: 'uncertain' });
    expect(gradeWithSigns(putBack('(49)-4=45'), false)).toMatchObject({ verdict: 'correct' });
  });
});

describe('a sign lost between two digits of the question', () => {
  /** A piece read as `text`, characters 20 px wide, with `gap` px of paper before character `at`; line height 40. */
  function spaced(text: string, at: number, gap: number) {
    const chars = [...text].map((t, i) => ({ text: t, confidence: 0.97, x0: 20 * i + (i >= at ? gap : 0), x1: 20 * i + 20 + (i >= at ? gap : 0) }));
    return { text, confidence: 0.97, minCharConfidence: 0.97, box: { x: 0, y: 0, w: 20 * chars.length + gap, h: 40 }, chars, arithmetic: true };
  }

  it('may have stood where the recogniser left a gap, if some operator there makes the answer right', () => {
    // "2+3×8=26" read as "23×8=26", 13 px between the 2 and the 3.
    expect(rightWithSignInGap(spaced('23×8=26', 1, 13))).toBe(true);
    // Digits edge to edge are one number: "68+3=17" is wrong, though 6+8+3 = 17.
    expect(rightWithSignInGap(spaced('68+3=17', 1, 0))).toBe(false);
    expect(rightWithSignInGap(spaced('68+3=17', 1, 2))).toBe(false);
    // Nor is a gap beside a narrow 1 in a printed number (0.17 line heights): 19-1×2 = 17.
    expect(rightWithSignInGap(spaced('19-12=17', 4, 7))).toBe(false);
    expect(rightWithSignInGap(spaced('19-12=17', 4, 12))).toBe(true);
    // A gap where no operator makes the answer right; a gap in the answer.
    expect(rightWithSignInGap(spaced('23×8=27', 1, 13))).toBe(false);
    expect(rightWithSignInGap(spaced('23×8=184', 6, 13))).toBe(false);
  });
});

describe('a + whose shape is no ×', () => {
  it('is not taken for one: "24+3=72" is wrong, though 24×3 = 72', () => {
    const chars = [...'24+3=72'].map((t, i) => ({ text: t, confidence: 0.99, x0: 20 * i, x1: 20 * i + 20 }));
    const piece = { text: '24+3=72', confidence: 0.99, minCharConfidence: 0.99, box: { x: 0, y: 0, w: 140, h: 30 }, chars, arithmetic: true };
    expect(gradeWithSigns(piece, false)).toMatchObject({ verdict: 'uncertain', reason: 'operator_may_be_misread' });
    expect(gradeWithSigns({ ...piece, ink: [{ at: 2, read: '+', ruledOut: '×' }] }, false)).toMatchObject({ verdict: 'incorrect', correct_answer: '27' });
  });
});

describe('a + the ink reads as ÷', () => {
  /** A piece read as `text` with its remainder's dots guessed from the ink at `dotsAt`, the + at 2 without a crossing. */
  function dotted(text: string, dotsAt: number) {
    const chars = [...text.replace('……', '.')].map((t, i) => (i === dotsAt ? { text: '……', confidence: INK_GUESSED, x0: 20 * i, x1: 20 * i + 20 } : { text: t, confidence: 0.97, runnerUp: '1', x0: 20 * i, x1: 20 * i + 20 }));
    return { text, confidence: 0.9, minCharConfidence: INK_GUESSED, box: { x: 0, y: 0, w: 20 * chars.length, h: 30 }, chars, ink: [{ at: 2, read: '+', alt: '÷' }], arithmetic: true };
  }

  it('with a remainder after it, is a division: wrong when wrong however the sign and the doubtful dots are read', () => {
    expect(gradeWithSigns(dotted('13+2=6……2', 6), false)).toMatchObject({ question: '13÷2=', verdict: 'incorrect', correct_answer: '6……1' });
    expect(gradeWithSigns(dotted('13+2=6……1', 6), false)).toMatchObject({ question: '13÷2=', verdict: 'correct' });
    // Dots the ink put between the digits of a right sum ("16+3=19"): the + read, dots left out, is right.
    expect(gradeWithSigns(dotted('16+3=1……9', 6), false)).toMatchObject({ verdict: 'uncertain' });
  });

  it('is wrong only if wrong as any operator when its weak characters are read every way', () => {
    const read = dotted('36+4=32', -1);
    const weak = { ...read, chars: read.chars.map((c, i) => (i === 5 ? { ...c, confidence: 0.45, runnerUp: '8' } : c)), minCharConfidence: 0.45 };
    // Right as 36-4: the child may have subtracted, the lamp may have misread.
    expect(alternateReading(weak)).toMatchObject({ verdict: 'uncertain' });
    expect(alternateReading({ ...weak, text: '36+4=31', chars: weak.chars.map((c, i) => (i === 6 ? { ...c, text: '1' } : c)) })).toMatchObject({ question: '36÷4=', verdict: 'incorrect' });
  });
});

describe('a wrong answer one second choice away from a right one', () => {
  function read(text: string, at: number, confidence: number, runnerUp: string) {
    const chars = [...text].map((t, i) => ({ text: t, confidence: i === at ? confidence : 0.99, runnerUp: i === at ? runnerUp : '#', x0: 20 * i, x1: 20 * i + 20 }));
    return { text, confidence: 0.95, minCharConfidence: confidence, box: { x: 0, y: 0, w: 20 * chars.length, h: 30 }, chars };
  }

  it('may be misread when that digit was doubted ("4+7×8=60" read as "=50", the 5 at 0.78 with 6 second)', () => {
    expect(rightAsSecondChoice(read('4+7×8=50', 6, 0.78, '6'))).toBe(true);
    // In the question too: "4+7×8" read as "4+7×6".
    expect(rightAsSecondChoice(read('4+7×6=60', 4, 0.8, '8'))).toBe(true);
    // With the other reading of a sign its ink supports: "36÷4=9" read as "36×4=8", the classifier leaning to ÷.
    const times = { ...read('36×4=8', 5, 0.78, '9'), ink: [{ at: 2, read: '×', alt: '÷' }] };
    expect(rightAsSecondChoice(times)).toBe(true);
    expect(rightAsSecondChoice({ ...times, ink: [] })).toBe(false);
    // Right but for a remainder the recogniser may have lost: "27÷4=6……3" read as "27÷4=8.".
    expect(rightAsSecondChoice(read('27÷4=8.', 5, 0.51, '6'))).toBe(true);
  });

  it('is wrong when the digit was read surely, its second choice is no digit, or the second choice is wrong too', () => {
    expect(rightAsSecondChoice(read('4+7×8=50', 6, 0.95, '6'))).toBe(false);
    expect(rightAsSecondChoice(read('4+7×8=50', 6, 0.78, 'S'))).toBe(false);
    expect(rightAsSecondChoice(read('4+7×8=50', 6, 0.78, '3'))).toBe(false);
  });

  it('is not doubted for a reading uncertain as read and as its second choice ("61+7=7……12": uncertain with any remainder)', () => {
    const plus = { ...read('61+7=7……12', 8, 0.78, '2'), ink: [{ at: 2, read: '+', alt: '÷' }] };
    expect(rightAsSecondChoice(plus)).toBe(false);
    // Right as the second choice, it is.
    expect(rightAsSecondChoice({ ...read('61+7=7……5', 5, 0.78, '8'), ink: [{ at: 2, read: '+', alt: '÷' }] })).toBe(true);
  });
});

describe('the slot after an "="', () => {
  it('is bare paper with only the end of the equals sign\'s bars, blurred into one block, at its left edge; a digit there is ink', () => {
    const page = new cv.Mat(100, 400, cv.CV_8UC3, [255, 255, 255]);
    const slot = { x: 100, y: 20, w: 120, h: 60 };
    // Line height 38: the bars' end 14 px tall, a digit 26.
    page.drawRectangle(new cv.Rect(96, 43, 8, 14), new cv.Vec3(40, 40, 40), -1);
    expect(inkBox(page, slot, 38, true)).toBeUndefined();
    // After a remainder's dots a mark that tall is a digit the slot's edge cut through.
    expect(inkBox(page, slot, 38)).toBeDefined();
    // So is a wider one after an "=", and a taller one.
    const wide = new cv.Mat(100, 400, cv.CV_8UC3, [255, 255, 255]);
    wide.drawRectangle(new cv.Rect(96, 43, 16, 14), new cv.Vec3(40, 40, 40), -1);
    expect(inkBox(wide, slot, 38, true)).toBeDefined();
    page.drawRectangle(new cv.Rect(96, 37, 8, 26), new cv.Vec3(40, 40, 40), -1);
    expect(inkBox(page, slot, 38, true)).toBeDefined();
  });

  it('is never bare paper when it runs into the page edge (a page cut off by the camera or the page outline)', () => {
    const page = new cv.Mat(100, 400, cv.CV_8UC3, [255, 255, 255]);
    expect(cutByEdge(page, { x: 300, y: 10, w: 99, h: 40 })).toBe(true);
    expect(cutByEdge(page, { x: 250, y: 10, w: 100, h: 40 })).toBe(false);
  });
});

describe('an answer read with fewer digits than its ink has', () => {
  it('is a digit the recogniser dropped ("72-25=47" read as "72-25=7"): never wrong from that reading', () => {
    const page = inked('72-25=47', 10, 10, 1);
    const read = line('72-25=47', 10, 10);
    const piece = { text: read.text, confidence: 0.97, minCharConfidence: 0.97, box: read.box, equalsX: 10 + 20 * 6, arithmetic: true };
    expect(digitLost(page, piece, '7')).toBe(true);
    expect(digitLost(page, piece, '47')).toBe(false);
    // One digit written, one read.
    expect(digitLost(inked('72-25=7', 10, 10, 1), { ...piece, text: '72-25=7' }, '7')).toBe(false);
  });
});

describe('a fill-in bracket read with fewer digits than its ink has', () => {
  it('is a digit the recogniser dropped ("( 17 )+26=43" read as "(1)+26=43"): never wrong from that reading', () => {
    const page = inked('(47)+26=43', 10, 10, 1);
    const read = line('(4)+26=43', 10, 10);
    // The bracket's content read as one character spanning both digits' cells.
    read.chars[1] = { ...(read.chars[1] as OcrLine['chars'][number]), x1: 70 };
    for (const [k, c] of read.chars.entries()) if (k >= 2) Object.assign(c, { x0: c.x0 + 20, x1: c.x1 + 20 });
    const piece = { text: read.text, confidence: 0.97, minCharConfidence: 0.97, box: { ...read.box, w: 200 }, arithmetic: true, chars: read.chars };
    expect(digitLostInBracket(page, piece, '4')).toBe(true);
    expect(digitLostInBracket(page, piece, '47')).toBe(false);
    expect(digitLostInBracket(inked('(4)+26=43', 10, 10, 1), { ...piece, chars: line('(4)+26=43', 10, 10).chars }, '4')).toBe(false);
  });
});

describe('the digits in a fill-in blank', () => {
  const piece = (page: ReturnType<typeof inked>) => {
    const read = line('(48)+8=40', 10, 10);
    return { page, item: { text: read.text, confidence: 0.97, minCharConfidence: 0.97, box: read.box, arithmetic: true, chars: read.chars } };
  };
  it('are the child\'s when written in the pen\'s blue; printed, or on a page without blue, they are not known to be', () => {
    const blue = piece(inked('(48)+8=40', 10, 10, 1, 1));
    expect([...writtenInBlank(blue.page, blue.item)]).toEqual([1, 2]);
    const grey = piece(inked('(48)+8=40', 10, 10, 1));
    expect(writtenInBlank(grey.page, grey.item).size).toBe(0);
    // Graded so, a wrong 48 is wrong: no printed × was lost between its digits.
    expect(gradeWithSigns(blue.item, false, {}, true)).toMatchObject({ verdict: 'incorrect' });
    expect(gradeWithSigns(blue.item, false)).toMatchObject({ verdict: 'uncertain', reason: 'operator_may_be_lost' });
  });
});

describe('a sign read as a digit of the question', () => {
  const piece = (read: OcrLine) => ({ text: read.text, confidence: 0.97, minCharConfidence: 0.97, box: read.box, arithmetic: true, chars: read.chars });
  it('is a sign where its ink is short or a ÷ ("12÷2+22=28" read as "1242+22=28"), and the answer may be right', () => {
    // The printed ÷ and + drawn as in the photo, the recogniser's reading with a 4 for the ÷.
    for (const sign of ['÷', '+']) {
      const page = inked(`12${sign}2+22=28`, 10, 10, 1);
      expect(rightWithSignReadAsDigit(page, piece(line('1242+22=28', 10, 10)))).toBe(true);
    }
    // A real digit there is full height: the reading stands.
    expect(rightWithSignReadAsDigit(inked('1242+22=28', 10, 10, 1), piece(line('1242+22=28', 10, 10)))).toBe(false);
    // No operator in its place makes the answer right.
    expect(rightWithSignReadAsDigit(inked('12÷2+22=29', 10, 10, 1), piece(line('1242+22=29', 10, 10)))).toBe(false);
  });
});

describe('an operator whose shape the classifier is sure of', () => {
  const page = inked('36+4=9', 10, 10, 1);
  const read = (text: string, confidence = 0.97): OcrLine => line(text, 10, 10, confidence);

  it('is the sign it shows, sure, with the classifier\'s confidence when the recogniser read another', () => {
    const shapes = says('÷', 0.999);
    const fixed = readSignsFromInk(page, read('36+4=9'), shapes);
    expect(shapes.asked).toEqual([SIGN_WINDOW * SIGN_WINDOW]);
    expect(fixed.text).toBe('36÷4=9');
    expect(fixed.chars[2]).toMatchObject({ text: '÷', confidence: 0.999, sure: true });
  });

  it('confirms what the recogniser read, and a doubt about that operator goes', () => {
    const weak = (text: string): OcrLine => {
      const line = read(text);
      line.chars[2] = { ...(line.chars[2] as OcrLine['chars'][number]), confidence: 0.35 };
      line.minCharConfidence = 0.35;
      return line;
    };
    const fixed = readSignsFromInk(page, weak('36-4=9'), says('-', 0.995));
    expect(fixed.chars[2]).toMatchObject({ text: '-', confidence: 0.995, sure: true });
    expect(fixed.minCharConfidence).toBe(0.97);
    // An x the classifier sees as × is written ×.
    expect(readSignsFromInk(page, read('36x4=9'), says('×', 0.995)).text).toBe('36×4=9');
    // A + is read as +, never sure: a ÷ taken for a sure + would make a right answer wrong. It
    // is no × though, and the note on the piece says so to the grader.
    const plus = readSignsFromInk(page, weak('36+4=9'), says('+', 0.995));
    expect(plus.chars[2]).toMatchObject({ text: '+', confidence: 0.995, ruledOut: '×' });
    expect(plus.chars[2]).not.toHaveProperty('sure');
    expect(plus.minCharConfidence).toBe(0.97);
    expect(piecesOf(plus)[0]?.ink).toEqual([{ at: 2, read: '+', ruledOut: '×' }]);
    expect(readSignsFromInk(page, weak('36+4=9'), says('+', 0.98)).chars[2]).not.toHaveProperty('ruledOut');
  });

  it('is taken where the recogniser read 元 in the first operator\'s place', () => {
    const times = readSignsFromInk(inked('7×8=56', 10, 10, 1), read('7元8=56'), says('×', 0.999));
    expect(times.text).toBe('7×8=56');
    expect(times.chars[1]).toMatchObject({ text: '×', confidence: 0.999, sure: true });
    // The "=" it lost is then found as in any sum: "9元6元54".
    expect(readSignsFromInk(inked('9×6=54', 10, 10, 1), read('9元6元54'), says('×', 0.999)).text).toBe('9×6=54');
    // Leaning to a sign, the classifier puts it in as a guess; not below SHAPE_ALT_AT, nor where
    // 元 is the "=", a unit or not between numbers.
    expect(readSignsFromInk(page, read('7元8=56'), says('×', 0.85)).chars[1]).toMatchObject({ text: '×', confidence: INK_GUESSED });
    expect(readSignsFromInk(page, read('7元8=56'), says('×', 0.55)).text).toBe('7元8=56');
    expect(readSignsFromInk(page, read('7元8=56'), says('=', 0.999)).text).toBe('7元8=56');
    expect(readSignsFromInk(page, read('1元5角+2角=1元7角'), says('×', 0.999)).chars[1]?.text).toBe('元');
    expect(readSignsFromInk(page, read('5元+3元=8元'), says('×', 0.999)).chars[1]?.text).toBe('元');
    expect(readSignsFromInk(page, read('元8=56'), says('×', 0.999)).text).toBe('元8=56');
  });

  it('puts back a sign the recogniser dropped beside a bracket, as a guess', () => {
    // "7(8)=63" for 7×(8)=63, "(18)12=6" for (18)-12=6: the window between the two is classified.
    const dropped = (text: string, gapAt: number): OcrLine => {
      const l = read(text);
      l.chars = l.chars.map((c, i) => (i >= gapAt ? { ...c, x0: c.x0 + 20, x1: c.x1 + 20 } : c));
      return l;
    };
    const times = readSignsFromInk(page, dropped('7(8)=63', 1), says('×', 0.999));
    expect(times.text).toBe('7×(8)=63');
    expect(times.chars[1]).toMatchObject({ text: '×', confidence: INK_GUESSED, x0: 30, x1: 50 });
    expect(times.minCharConfidence).toBe(INK_GUESSED);
    expect(readSignsFromInk(page, dropped('(18)12=6', 4), says('-', 0.999)).text).toBe('(18)-12=6');
    // A blurred bracket read as a curly one.
    expect(readSignsFromInk(page, dropped('(94}8=86', 4), says('-', 0.999)).text).toBe('(94}-8=86');
    // Leaning to a sign at 0.9 is enough for a guess; not below, nor in a comparison (its circle's ring reads as brackets).
    expect(readSignsFromInk(page, dropped('7(8)=63', 1), says('×', 0.9)).text).toBe('7×(8)=63');
    expect(readSignsFromInk(page, dropped('7(8)=63', 1), says('×', 0.85)).text).toBe('7(8)=63');
    expect(readSignsFromInk(page, dropped('35(○=)63', 2), says('-', 0.999)).text).toBe('35(○=)63');
    // Nor after an "=": "29(11)" is the answer 29 and the next problem run into the line.
    const long = '10+(18)=29(11)+10=21';
    const wide = inked(long, 10, 10, 1);
    const shapes = says('+', 0.999);
    expect(readSignsFromInk(wide, dropped(long, 10), shapes).text).toBe(long);
    expect(shapes.asked).toHaveLength(2); // the two printed +, not the gap
    // Between two digits of a problem with no operator before its "=" ("84=32" for 8×4=32), in
    // the widest gap; with an operator read, or where the classifier sees an "=", none.
    const lost = readSignsFromInk(page, dropped('8443=2', 2), says('×', 0.95));
    expect(lost.text).toBe('84×43=2');
    expect(lost.chars[2]).toMatchObject({ text: '×', confidence: INK_GUESSED });
    expect(readSignsFromInk(page, dropped('84+43=2', 2), says('×', 0.95)).text).toBe('84+43=2');
    expect(readSignsFromInk(page, dropped('8443=2', 2), says('=', 0.95)).text).toBe('8443=2');
    expect(readSignsFromInk(page, dropped('8443=2', 2), says('×', 0.85)).text).toBe('8443=2');
    // Digits edge to edge are one number: the classifier is not asked.
    const shapes2 = says('×', 0.95);
    expect(readSignsFromInk(page, read('8443=2'), shapes2).text).toBe('8443=2');
    expect(shapes2.asked).toHaveLength(0);
  });

  it('a ÷ seen in the ink (a bar with a dot above and below) is sure, unless the classifier leans to the + read: a blurred + has such "dots" too', () => {
    const divide = inked('36÷4=9', 10, 10, 1);
    expect(readSignsFromInk(divide, read('36+4=9'), says('÷', 0.9)).chars[2]).toMatchObject({ text: '÷', sure: true });
    expect(readSignsFromInk(divide, read('36+4=9'), says('-', 0.5)).chars[2]).toMatchObject({ text: '÷', sure: true });
    const plus = readSignsFromInk(divide, read('36+4=9'), says('+', 0.98)).chars[2];
    expect(plus).toMatchObject({ text: '+', alt: '÷' });
    expect(plus).not.toHaveProperty('sure');
  });

  it('leaves the sign to the other ink rules when the classifier is not sure or sees an "="', () => {
    for (const shapes of [says('÷', 0.9), says('=', 0.999)]) {
      const fixed = readSignsFromInk(page, read('36+4=9'), shapes);
      expect(fixed.text).toBe('36+4=9');
      expect(fixed.chars[2]).not.toHaveProperty('sure');
    }
  });
});

describe('a wrong answer run into the next problem', () => {
  /** An OCR line (see line()) with the characters from `at` on moved right by `gap` px. */
  const apart = (text: string, at: number, gap: number): PageItem => {
    const l = line(text, 100, 50);
    l.chars = l.chars.map((c, i) => (i >= at ? { ...c, x0: c.x0 + gap, x1: c.x1 + gap } : c));
    return pageItems([{ ...l, box: { ...l.box, w: l.box.w + gap } }])[0] as PageItem;
  };

  it('is graded up to a gap of more than SPLIT_GAP line heights with three characters after it: right there is right, otherwise uncertain', () => {
    // "()+15=82" and the digits of "32○85" beside it, its circle and sign lost (hard-12429).
    expect(answerCutAtGap(apart('(67)+15=823285', 10, 30))).toMatchObject({ question: '()+15=82', student_answer: '67', verdict: 'correct', reason: 'answer_cut_at_gap' });
    expect(answerCutAtGap(apart('23+45=58683', 8, 30))).toMatchObject({ student_answer: '58', verdict: 'uncertain', reason: 'answer_runs_on' });
    // Digits close together, a gap right after the "=", or only two characters after it: nothing to cut.
    expect(answerCutAtGap(apart('23+45=58683', 8, 10))).toBeUndefined();
    expect(answerCutAtGap(apart('23+45=58', 6, 30))).toBeUndefined();
    expect(answerCutAtGap(apart('86+9=814', 6, 30))).toBeUndefined();
    // A remainder's digits stand apart when its dots are lost or read small: a division or an answer with dots is not cut.
    expect(answerCutAtGap(apart('86÷9=8141', 6, 30))).toBeUndefined();
    expect(answerCutAtGap(apart('86+9=8…141', 7, 30))).toBeUndefined();
  });
});

describe('the paper after an answer', () => {
  it('is bare when no mark stands within a remainder\'s reach or before the next problem; not where the page edge cuts it', () => {
    const [p, next] = pageItems([line('15+2=7', 20, 40), line('8+9=17', 180, 40)]) as PageItem[];
    const page = new cv.Mat(120, 420, cv.CV_8UC3, [255, 255, 255]);
    expect(bareAfterAnswer(page, p as PageItem, [p as PageItem])).toBe(true);
    // The next column's problem is not a remainder: the paper is looked at up to where it begins.
    page.drawRectangle(new cv.Rect(182, 44, 14, 22), new cv.Vec3(40, 40, 40), -1);
    expect(bareAfterAnswer(page, p as PageItem, [p, next] as PageItem[])).toBe(true);
    expect(bareAfterAnswer(page, p as PageItem, [p as PageItem])).toBe(false);
    // A remainder's digit after the answer is ink.
    page.drawRectangle(new cv.Rect(155, 44, 12, 22), new cv.Vec3(40, 40, 40), -1);
    expect(bareAfterAnswer(page, p as PageItem, [p, next] as PageItem[])).toBe(false);
    // An answer at the page's right edge: what lies beyond is unknown.
    const [edge] = pageItems([line('15+2=7', 300, 40)]) as PageItem[];
    expect(bareAfterAnswer(new cv.Mat(120, 440, cv.CV_8UC3, [255, 255, 255]), edge as PageItem, [edge as PageItem])).toBe(false);
    // No digits after an "=": nothing to say.
    const [blank] = pageItems([line('15+2=', 20, 40)]) as PageItem[];
    expect(bareAfterAnswer(new cv.Mat(120, 420, cv.CV_8UC3, [255, 255, 255]), blank as PageItem, [blank as PageItem])).toBe(false);
  });
});

describe('a decimal point the recogniser saw but did not read', () => {
  /** A piece of `text` whose character at `at` had a point before it at probability `p`. */
  const pointed = (text: string, at: number, p: number): PageItem => {
    const l = line(text, 100, 50);
    l.chars = l.chars.map((c, i) => (i === at ? { ...c, pointBefore: p } : c));
    return pageItems([l])[0] as PageItem;
  };

  it('makes a right answer right where it stood; it never condemns', () => {
    expect(pointSeenInAnswer(pointed('1.7-0.3=14', 9, 0.17))).toMatchObject({ student_answer: '1.4', verdict: 'correct', reason: 'decimal_point_seen' });
    expect(gradeWithSigns(pointed('1.7-0.3=14', 9, 0.17), false)).toMatchObject({ student_answer: '1.4', verdict: 'correct', reason: 'decimal_point_seen' });
    // Too faint, in the wrong place, or wrong with the point too: the answer stays as it was graded.
    expect(pointSeenInAnswer(pointed('1.7-0.3=14', 9, 0.05))).toBeUndefined();
    expect(gradeWithSigns(pointed('1.7-0.3=14', 9, 0.05), false)).toMatchObject({ verdict: 'uncertain', reason: 'decimal_point_maybe_lost' });
    expect(pointSeenInAnswer(pointed('12.5+1.1=136', 11, 0.3))).toMatchObject({ student_answer: '13.6', verdict: 'correct' });
    expect(pointSeenInAnswer(pointed('12.5+1.1=136', 10, 0.3))).toBeUndefined();
    expect(pointSeenInAnswer(pointed('2.5-0.4=211', 10, 0.3))).toBeUndefined();
  });
});

describe("a blank's answer slot", () => {
  it('ends where the next problem on its row begins, and only there', () => {
    const [blank, next, below] = pageItems([line('(38+19)+16=', 100, 50), line('86 >68', 330, 50), line('5+15=20', 300, 120)]) as PageItem[];
    const slot = { x: 260, y: 40, w: 140, h: 48 };
    expect(next?.text).toBe('86 >68');
    expect(endedByNext(slot, blank as PageItem, [blank, next, below] as PageItem[])).toEqual({ ...slot, w: 330 - 260 });
    // The next problem further right than the slot reaches, or on another row: the slot stays.
    expect(endedByNext({ ...slot, w: 60 }, blank as PageItem, [blank, next] as PageItem[])).toEqual({ ...slot, w: 60 });
    expect(endedByNext(slot, blank as PageItem, [blank, below] as PageItem[])).toEqual(slot);
  });
});

describe('a problem read again from a wider crop', () => {
  const sure = (text: string, confidence = 0.95) => ({ text, confidence, minCharConfidence: confidence, chars: [...text].map((t) => ({ text: t, confidence, x0: 0, x1: 1 })) });
  /** A first reading, each character at 0.95 but those given. */
  const first = (text: string, weak: Record<number, number> = {}, alt: Record<number, string> = {}): PageItem => {
    const chars = [...text].map((t, i) => ({ text: t, confidence: weak[i] ?? 0.95, x0: 0, x1: 1, ...(alt[i] ? { alt: alt[i] } : {}) }));
    return { text, confidence: 0.7, minCharConfidence: Math.min(...chars.map((c) => c.confidence)), box: { x: 0, y: 0, w: 1, h: 1 }, chars, arithmetic: true };
  };

  it('shares the digits, points, remainder\'s dots and signs of the first reading', () => {
    expect(sharesReading(first('27÷4m 6....3'), sure('27÷4=6……3'))).toBe(true);
    expect(sharesReading(first('27÷4=6...3'), sure('27÷4=6……3'))).toBe(true);
    expect(sharesReading(first('27÷4=6.3'), sure('27÷4=6……3'))).toBe(false);
    expect(sharesReading(first('8元6=48'), sure('8×6=48'))).toBe(true);
    expect(sharesReading(first('68.40=28'), sure('68-40=28'))).toBe(true);
    expect(sharesReading(first('2x3=6'), sure('2×3=6'))).toBe(true);
    // A digit lost, a point or dots found, a sure operator changed: not the same reading.
    expect(sharesReading(first('13-12=11'), sure('13-12=1'))).toBe(false);
    expect(sharesReading(first('2.5-0.9=16'), sure('2.5-0.9=1.6'))).toBe(false);
    expect(sharesReading(first('39÷8=47'), sure('39÷8=4……7'))).toBe(false);
    expect(sharesReading(first('39÷8=47'), sure('39+8=47'))).toBe(false);
    // Nor a point, dots, a fraction bar or brackets lost, but for a point read again as an
    // operator, and brackets added where the first reading's do not pair.
    expect(sharesReading(first('1.2×3=36'), sure('12×3=36'))).toBe(false);
    expect(sharesReading(first('96÷8=1……2'), sure('96÷8=12'))).toBe(false);
    expect(sharesReading(first('1/2+1/4=3/4'), sure('1/2+1/4=34'))).toBe(false);
    expect(sharesReading(first('(2+3)×4=14'), sure('2+3×4=14'))).toBe(false);
    expect(sharesReading(first('4×29-12)=68'), sure('4×(29-12)=68'))).toBe(true);
    expect(sharesReading(first('2+3×4=20'), sure('(2+3)×4=20'))).toBe(false);
    // Look-alikes of a sure sign are that sign: 十 read again as × is another sign.
    expect(sharesReading(first('6十3=18'), sure('6×3=18'))).toBe(false);
    expect(sharesReading(first('6*3=9'), sure('6+3=9'))).toBe(false);
    expect(sharesReading(first('6*3=18'), sure('6×3=18'))).toBe(true);
    // A sign the first reading doubted is no other sign: a child's + for a printed - is the
    // mistake a second crop must not excuse. A + whose ink supports ÷ too is not settled by a
    // crop reading it +; a doubted = stays where it was read.
    expect(sharesReading(first('69-31=100', { 2: 0.3 }), sure('69+31=100'))).toBe(false);
    expect(sharesReading(first('69-31=38', { 2: 0.3 }), sure('69-31=38'))).toBe(true);
    expect(sharesReading(first('39+8=47', {}, { 2: '÷' }), sure('39+8=47'))).toBe(false);
    expect(sharesReading(first('12+3=15', { 4: 0.3 }), sure('12+31=5'))).toBe(false);
  });

  it('marks a right answer right when a reading sharing the first is sure of it', () => {
    const g = confirmedByRereading(first('8元6=48'), [undefined, sure('8×6=48')]);
    expect(g).toMatchObject({ verdict: 'correct', question: '8×6=', student_answer: '48' });
    expect(confirmedByRereading(first('27÷4m 6....3'), [sure('27÷4=6……3', 0.9)])?.verdict).toBe('correct');
  });

  it('never takes a reading the first does not share, and never makes a problem wrong', () => {
    // The second 1 lost in the second crop would make a wrong answer right.
    expect(confirmedByRereading(first('13-12=11'), [sure('13-12=1')])).toBeUndefined();
    expect(confirmedByRereading(first('3×2=0'), [sure('3×2=6')])).toBeUndefined();
    expect(confirmedByRereading(first('39÷8=47'), [sure('39+8=47')])).toBeUndefined();
    expect(confirmedByRereading(first('8×6=46'), [sure('8×6=46')])).toBeUndefined();
  });

  it('leaves the problem uncertain when one reading is wrong or none is sure enough', () => {
    expect(confirmedByRereading(first('8元6=48'), [sure('8×6=48'), sure('8×6=46')])).toBeUndefined();
    expect(confirmedByRereading(first('8×9=72'), [sure('8×9=72', 0.4)])).toBeUndefined();
    expect(confirmedByRereading(first('8×9=72'), [{ ...sure('8×9=72', 0.9), minCharConfidence: 0.1 }])).toBeUndefined();
    // Crops that read other digits disagree about the answer, however doubtfully.
    expect(confirmedByRereading(first('8元6=48', { 5: 0.25 }), [sure('8×6=48', 0.9), sure('8×6=46', 0.45)])).toBeUndefined();
    // A comparison's sign is the child's answer: no crop reads it for the child.
    expect(confirmedByRereading(first('8×7く55'), [sure('8×7>55')])).toBeUndefined();
  });

  it('doubts a wrong answer that a crop reads right, or reads with as many digits but other ones', () => {
    // "8÷2=4" read as "8÷2=1" at 0.96, and again as "8+2=4": a digit misread one of the two times.
    expect(doubtedByRereading(first('8÷2=1'), [sure('8+2='), sure('8+2=4')])).toBe(true);
    expect(doubtedByRereading(first('6+13=9'), [sure('6+13=0', 0.6)])).toBe(true);
    expect(doubtedByRereading(first('8÷2=1'), [sure('8÷2=4')])).toBe(true);
    // Read the same, or with a digit lost or taken in: the wrong answer stands.
    expect(doubtedByRereading(first('16÷4=3'), [sure('16+4=3'), undefined])).toBe(false);
    expect(doubtedByRereading(first('33÷4=7……5'), [sure('33+4=7'), sure('33+4=7.5')])).toBe(false);
    expect(doubtedByRereading(first('42-4=83'), [sure('42-4=831')])).toBe(false);
    expect(doubtedByRereading(first('42-4=83'), [])).toBe(false);
  });
});

describe('reading again on a photographed page (hard-44, the real OCR models)', () => {
  it('marks right what a wider crop reads sure; when that reading fails the page is graded without it', async () => {
    const checker = await HomeworkChecker.load({ modelsDir: path.join(projectRoot(), 'no-models-dir') });
    const photo = readFileSync(path.join(projectRoot(), 'test', 'fixtures', 'homework', 'hard-44.jpg'));
    const ocr = (checker as unknown as { ocr: { recognize: (crops: Mat[]) => Promise<unknown[]> } }).ocr;
    const recognize = ocr.recognize.bind(ocr);
    let calls = 0;
    ocr.recognize = (crops) => (calls++, recognize(crops));
    const itemsOf = (c: PageCheck): CheckedItem[] => (c.ok ? c.items : []);
    const read = await checker.check(photo);
    const again = itemsOf(read.check).find((it) => it.reason === 'read_again');
    expect(again).toMatchObject({ question: '5×3=', student_answer: '15', verdict: 'correct' });
    // Reading again is the page's last recognition: it fails now.
    const last = calls;
    calls = 0;
    ocr.recognize = (crops) => (++calls === last ? Promise.reject(new Error('recogniser gone')) : recognize(crops));
    const failed = await checker.check(photo);
    expect(failed.check.ok).toBe(true);
    // As first read: "5×315", its = lost.
    expect(itemsOf(failed.check).find((it) => it.index === again?.index)).toMatchObject({ question: '5×315', verdict: 'uncertain' });
    expect(itemsOf(failed.check)).toHaveLength(itemsOf(read.check).length);
  });
});

describe('a fill-in answer beside its bracket', () => {
  const piece = (chars: { text: string; confidence: number; runnerUp?: string }[]): PageItem => ({
    text: chars.map((c) => c.text).join(''),
    confidence: 0.9,
    minCharConfidence: Math.min(...chars.map((c) => c.confidence)),
    box: { x: 0, y: 0, w: 1, h: 1 },
    chars: chars.map((c, i) => ({ ...c, x0: i, x1: i + 1 })),
    arithmetic: true,
  });
  const sure = (t: string) => [...t].map((text) => ({ text, confidence: 0.99 }));

  it('is doubted when a digit of it had the bracket as second choice, below 0.9', () => {
    expect(bracketTakenForDigit(piece([{ text: '1', confidence: 0.68, runnerUp: '(' }, ...sure('2)-37=5')]))).toBe(true);
    expect(bracketTakenForDigit(piece([{ text: '1', confidence: 0.95, runnerUp: '(' }, ...sure('2)-37=5')]))).toBe(false);
    expect(bracketTakenForDigit(piece([{ text: '1', confidence: 0.68, runnerUp: '7' }, ...sure('2)-37=5')]))).toBe(false);
    expect(bracketTakenForDigit(piece(sure('(12)-37=5')))).toBe(false);
  });
});
