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
    expect(fb.card.marks).toHaveLength(poor.errors.length);
  });
});
