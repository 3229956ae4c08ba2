import { describe, expect, it } from 'vitest';
import { analyze } from '../../models/intent/features.js';
import { builtinLibrary } from '../../scenes/recite/library.js';
import { MaterialMatcher, extractSlots, extractSubject } from './slots.js';

const matcher = new MaterialMatcher(builtinLibrary());

describe('material slot', () => {
  it.each([
    ['我要背静夜思', '静夜思'],
    ['我要背床前明月光那首', '静夜思'],
    ['李白的望庐山瀑布', '望庐山瀑布'],
    ['背一下白日依山尽', '登鹳雀楼'],
    ['我想被静夜丝', '静夜思'],
    ['背春小', '春晓'],
    ['鹅鹅鹅曲项向天歌', '咏鹅'],
    ['I want to recite twinkle twinkle little star', 'Twinkle, Twinkle, Little Star'],
    ['我要背风', '风'],
    ['两个黄鹂鸣翠柳那首', '绝句（两个黄鹂鸣翠柳）'],
  ])('%s → %s', (text, title) => {
    expect(matcher.match(text)?.title).toBe(title);
  });

  it.each(['我想背古诗', '今天天气真好', '画画好好玩', ''])('%s names no material', (text) => {
    expect(matcher.match(text)).toBeUndefined();
  });

  it('reports whether it matched a title or a quoted line', () => {
    expect(matcher.find(analyze('背静夜思'))?.via).toBe('title');
    expect(matcher.find(analyze('疑是地上霜'))?.via).toBe('line');
  });

  it('slots depend on the intent', () => {
    const found = matcher.find(analyze('我要背静夜思'));
    expect(extractSlots('我要背静夜思', 'recite', found)).toEqual({ material: '静夜思' });
    expect(extractSlots('我要背静夜思', 'chat', found)).toEqual({});
    expect(extractSlots('检查数学作业', 'homework', undefined)).toEqual({ subject: '数学' });
  });
});

describe('subject slot', () => {
  it.each([['帮我看看口算', '数学'], ['检查语文作业', '语文'], ['check my English homework', '英语'], ['检查作业', undefined]])('%s → %s', (text, subject) => {
    expect(extractSubject(text)).toBe(subject);
  });
});
