import { describe, expect, it } from 'vitest';
import { scoreRecitation } from './score.js';
import { compareSound } from './sound.js';

const JING_YE_SI = '床前明月光，疑是地上霜。\n举头望明月，低头思故乡。';
const CHUN_XIAO = '春眠不觉晓，处处闻啼鸟。\n夜来风雨声，花落知多少。';

describe('sound comparison', () => {
  it.each([
    ['霜', '双', 'tolerated'], // shuang1 = shuang1
    ['闻', '温', 'mispronounced'], // wen2 / wen1: same syllable, other tone
    ['是', '四', 'mispronounced'], // shi / si: sh–s
    ['能', '楞', 'mispronounced'], // neng / leng: n–l
    ['光', '关', 'mispronounced'], // guang / guan: uang–uan
    ['明', '民', 'mispronounced'], // ming / min: ing–in
    ['月', '花', 'wrong'],
    ['行', '形', 'tolerated'], // 行 has the reading xing2 among its readings
    ['光', '光', 'equal'],
  ])('%s vs %s → %s', (e, a, expected) => {
    expect(compareSound(e, a)).toBe(expected);
  });
});

describe('scoreRecitation', () => {
  it('a perfect recitation, whatever the punctuation, spaces and width', () => {
    expect(scoreRecitation(JING_YE_SI, '床前明月光 疑是地上霜, 举头望明月! 低头思故乡')).toEqual({ accuracy: 100, need_retry: false, errors: [], tolerated: [] });
  });

  it('the example of the contract: 闻 recited as 温 is mispronounced at 第2句第3字', () => {
    const r = scoreRecitation(CHUN_XIAO, '春眠不觉晓处处温啼鸟夜来风雨声花落知多少');
    expect(r.errors).toEqual([{ type: 'mispronounced', sentence: 2, char: 3, expected: '闻', actual: '温', position: '第2句第3字' }]);
    expect(r.accuracy).toBe(95);
    expect(r.need_retry).toBe(false);
  });

  it('same sound and tone is tolerated: counted correct and listed', () => {
    const r = scoreRecitation(JING_YE_SI, '床前明月光疑是地上双举头望明月低头思故乡');
    expect(r.accuracy).toBe(100);
    expect(r.errors).toEqual([]);
    expect(r.tolerated).toEqual([{ sentence: 2, char: 5, expected: '霜', actual: '双', position: '第2句第5字' }]);
  });

  it('a wrong word', () => {
    const r = scoreRecitation(JING_YE_SI, '床前明月光疑是地上霜举头望明月低头想故乡');
    expect(r.errors).toEqual([{ type: 'wrong_word', sentence: 4, char: 3, expected: '思', actual: '想', position: '第4句第3字' }]);
  });

  it('an omission of one character, and of a whole line as one error', () => {
    expect(scoreRecitation(JING_YE_SI, '床前明月光疑是地上霜举头望明月低头思乡').errors).toEqual([
      { type: 'omission', sentence: 4, char: 4, expected: '故', actual: '', position: '第4句第4字' },
    ]);
    const r = scoreRecitation(JING_YE_SI, '床前明月光疑是地上霜低头思故乡');
    expect(r.errors).toEqual([{ type: 'omission', sentence: 3, char: 1, expected: '举头望明月', actual: '', position: '第3句第1字' }]);
    expect(r.accuracy).toBe(75);
    expect(r.need_retry).toBe(true);
  });

  it('an insertion is reported but does not lower accuracy', () => {
    const r = scoreRecitation(JING_YE_SI, '床前明月光疑是地上霜举头望明明月低头思故乡');
    expect(r.accuracy).toBe(100);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ type: 'insertion', expected: '', actual: '明', sentence: 3 });
  });

  it('two neighbouring characters transposed are one order error', () => {
    const r = scoreRecitation(JING_YE_SI, '床前月明光疑是地上霜举头望明月低头思故乡');
    expect(r.errors).toEqual([{ type: 'order', sentence: 1, char: 3, expected: '明月', actual: '月明', position: '第1句第3字' }]);
  });

  it('two lines swapped are one order error, not an omission plus an insertion', () => {
    const r = scoreRecitation(JING_YE_SI, '疑是地上霜床前明月光举头望明月低头思故乡');
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ type: 'order', expected: '疑是地上霜', actual: '疑是地上霜' });
  });

  it.each([
    ['lines 3 and 4 swapped', JING_YE_SI, '床前明月光疑是地上霜低头思故乡举头望明月', '低头思故乡'],
    ['the two halves swapped: one block', JING_YE_SI, '举头望明月低头思故乡床前明月光疑是地上霜', '举头望明月低头思故乡'],
    ['crossed neighbours read as two substitutions', '上山打老虎。', '山上打老虎', '上山'],
    ['one character moved within its sentence', '疑是地上霜。', '疑是霜地上', '霜'],
    ['one character moved back within its sentence', '离离原上草，一岁一枯荣。', '离离原上草一一岁枯荣', '一'],
  ])('order: %s is one order error', (_name, expected, recited, moved) => {
    const r = scoreRecitation(expected, recited);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ type: 'order', expected: moved });
  });

  it('digits written by the recogniser are read as the numbers they stand for', () => {
    expect(scoreRecitation('飞流直下三千尺，疑是银河落九天。', '飞流直下3000尺疑是银河落9天').accuracy).toBe(100);
    expect(scoreRecitation('一去二三里，烟村四五家。', '1去23里烟村45家').accuracy).toBe(100);
  });

  it('nothing recited: every sentence omitted, accuracy 0', () => {
    const r = scoreRecitation(JING_YE_SI, '');
    expect(r.accuracy).toBe(0);
    expect(r.errors.map((e) => e.type)).toEqual(['omission', 'omission', 'omission', 'omission']);
  });

  it('English is compared word by word, ignoring case and punctuation', () => {
    const text = 'Twinkle, twinkle, little star,\nHow I wonder what you are.';
    expect(scoreRecitation(text, 'TWINKLE twinkle little star how I wonder what you are').accuracy).toBe(100);
    const r = scoreRecitation(text, 'twinkle twinkle little car how I wonder what are you');
    expect(r.errors).toEqual([
      { type: 'wrong_word', sentence: 3, char: 2, expected: 'star', actual: 'car', position: '第3句第2词' },
      { type: 'order', sentence: 4, char: 5, expected: 'you are', actual: 'are you', position: '第4句第5词' },
    ]);
  });

  it('the same slip is counted once', () => {
    const r = scoreRecitation(JING_YE_SI, '床前明月光疑是地上霜举头望明月低头想故乡');
    expect(r.errors.filter((e) => e.expected === '思')).toHaveLength(1);
  });

  it('rejects an expected text with nothing to recite', () => {
    expect(() => scoreRecitation('，。', 'x')).toThrow(/nothing to recite/);
  });
});
