import type { Card } from '../types.js';
import type { Material } from './material.js';
import { findPattern, localTip, type PatternMemory } from './patterns.js';
import { type RecitationError, type ScoreResult, type Unit, expectedUnits, languageOf } from './score.js';

export interface PatternUpdate {
  error_type: RecitationError['type'];
  content: string;
  /** Set when this is the second (or later) time and the pattern has no tip yet. */
  tip: string | null;
}

export interface Feedback {
  text: string;
  card: Card;
  updates: PatternUpdate[];
}

const MAX_SPOKEN = 2;

function sentenceText(units: readonly Unit[], sentence: number, english: boolean): string {
  return units
    .filter((u) => u.sentence === sentence)
    .map((u) => u.text)
    .join(english ? ' ' : '');
}

/** The units an error covers, for marking them on the projector card. */
function coveredUnits(units: readonly Unit[], e: RecitationError, english: boolean): { units: Unit[]; after: boolean } {
  const start = units.findIndex((u) => u.sentence === e.sentence && u.char === e.char);
  if (start < 0) {
    // an insertion after the last unit of a sentence
    const last = units.filter((u) => u.sentence === e.sentence).pop();
    return { units: last ? [last] : [], after: true };
  }
  const count = e.type === 'insertion' ? 1 : Math.max(1, english ? e.expected.split(' ').length : [...e.expected].length);
  return { units: units.slice(start, start + count), after: false };
}

function describe(e: RecitationError, atEnd: boolean): string {
  switch (e.type) {
    case 'omission':
      return `${e.position}漏了“${e.expected}”`;
    case 'insertion':
      return atEnd ? `第${e.sentence}句后面多了“${e.actual}”` : `${e.position}前面多了“${e.actual}”`;
    case 'order':
      return `${e.position}应该是“${e.expected}”，顺序反了`;
    case 'mispronounced':
      return `${e.position}“${e.expected}”的读音再注意一下`;
    case 'wrong_word':
      return `${e.position}应该是“${e.expected}”`;
  }
}

/**
 * Short, encouraging spoken feedback and the projector card. An error seen for the first time
 * at this spot: just the right text. Seen before: also a memory tip — the stored one if there
 * is one, else a new local one that is then stored and reused.
 */
export function buildFeedback(m: Material, result: ScoreResult, patterns: readonly PatternMemory[], content: (e: RecitationError) => string): Feedback {
  const english = m.kind === 'english';
  const units = expectedUnits(m.text, languageOf(m.text));
  const updates: PatternUpdate[] = [];
  const spoken: string[] = [];
  const marks: Record<string, unknown>[] = [];
  for (const e of result.errors) {
    const known = findPattern(patterns, m.id, e);
    const seenBefore = (known?.occurrence_count ?? 0) >= 1;
    const tip = seenBefore ? (known?.memory_tip ?? localTip(e, sentenceText(units, e.sentence, english))) : null;
    updates.push({ error_type: e.type, content: content(e), tip: seenBefore && !known?.memory_tip ? tip : null });
    const covered = coveredUnits(units, e, english);
    if (spoken.length < MAX_SPOKEN) spoken.push(tip ? `${describe(e, covered.after)}。${tip}` : `${describe(e, covered.after)}。`);
    for (const u of covered.units) marks.push({ line: u.line, col: u.col, len: u.len, type: covered.after ? 'insertion-after' : e.type, actual: e.actual });
  }
  let text: string;
  if (result.errors.length === 0) text = `太棒了，${result.accuracy} 分，一个字都没错！`;
  else if (!result.need_retry) text = `背得很好，${result.accuracy} 分！${spoken.join('')}`;
  else text = `已经背下来不少了，${result.accuracy} 分。${spoken.join('')}我们再试一次好吗？`;
  if (result.errors.length > MAX_SPOKEN) text += `还有 ${result.errors.length - MAX_SPOKEN} 处在投影上标出来了。`;
  const card: Card = {
    kind: 'recite',
    title: `《${m.title}》`,
    subtitle: `${result.accuracy} 分`,
    lines: m.text.split('\n'),
    marks,
  };
  return { text, card, updates };
}
