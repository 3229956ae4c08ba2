import { describe, expect, it } from 'vitest';
import { buildFeedback } from './feedback.js';
import { builtinLibrary } from './library.js';
import { patternContent, type PatternMemory } from './patterns.js';
import { scoreRecitation } from './score.js';

const m = builtinLibrary().byTitle('静夜思')!;
const slip = scoreRecitation(m.text, '床前明月光疑是地上霜举头望明月低头想故乡'); // 思 → 想

function memory(count: number, tip: string | null): PatternMemory[] {
  return [{ error_type: 'wrong_word', material_id: m.id, content: '思', occurrence_count: count, memory_tip: tip }];
}

describe('recitation feedback', () => {
  it('first time at this spot: only the right text, no tip, nothing to store as tip', () => {
    const fb = buildFeedback(m, slip, [], patternContent);
    expect(fb.text).toContain('第4句第3字应该是“思”');
    expect(fb.text).not.toContain('读三遍');
    expect(fb.updates).toEqual([{ error_type: 'wrong_word', content: '思', tip: null }]);
  });

  it('second time: a local tip, which is handed back to be stored', () => {
    const fb = buildFeedback(m, slip, memory(1, null), patternContent);
    expect(fb.text).toContain('这里是“思”（sī），不是“想”');
    expect(fb.updates[0]?.tip).toContain('低头思故乡');
  });

  it('later times: the stored tip is reused, never regenerated', () => {
    const fb = buildFeedback(m, slip, memory(3, '记住：思念的思'), patternContent);
    expect(fb.text).toContain('记住：思念的思');
    expect(fb.updates[0]?.tip).toBeNull();
  });

  it('a pattern of another material does not count', () => {
    const other: PatternMemory[] = [{ ...memory(5, 'x')[0]!, material_id: 'chun-xiao' }];
    expect(buildFeedback(m, slip, other, patternContent).updates[0]?.tip).toBeNull();
  });

  it('all right: praise; need_retry: invite another try; the card marks every error', () => {
    expect(buildFeedback(m, scoreRecitation(m.text, m.text), [], patternContent).text).toContain('一个字都没错');
    const poor = scoreRecitation(m.text, '床前明月光');
    const fb = buildFeedback(m, poor, [], patternContent);
    expect(fb.text).toContain('再试一次');
    // three omitted lines: one mark per missing character, at the characters as written
    expect(fb.card.marks).toHaveLength(15);
    expect((fb.card.marks as { line: number; col: number }[])[0]).toMatchObject({ line: 0, col: 6, type: 'omission' });
  });

  it('marks are placed by line and column even past quotation marks, and English by word', () => {
    const quoted = { ...m, id: 'q', text: '他说：“下雪啦。”\n雪地里来了一群小画家。' };
    const fb = buildFeedback(quoted, scoreRecitation(quoted.text, '他说下雪啦雪地里来了一群小花家'), [], patternContent);
    expect(fb.card.marks).toEqual([{ line: 1, col: 8, len: 1, type: 'mispronounced', actual: '花' }]);
    const en = { ...m, id: 'e', kind: 'english' as const, text: 'Twinkle, twinkle, little star,\nHow I wonder what you are!' };
    const fe = buildFeedback(en, scoreRecitation(en.text, 'twinkle twinkle little star how I wander what you are'), [], patternContent);
    expect(fe.card.marks).toEqual([{ line: 1, col: 6, len: 6, type: 'wrong_word', actual: 'wander' }]);
  });

  it('words added after the end are said to come after it', () => {
    const fb = buildFeedback(m, scoreRecitation(m.text, m.text + '床前明月光'), [], patternContent);
    expect(fb.text).toContain('第4句后面多了“床前明月光”');
    expect(fb.card.marks).toEqual([expect.objectContaining({ line: 1, col: 10, type: 'insertion-after' })]);
  });
});
