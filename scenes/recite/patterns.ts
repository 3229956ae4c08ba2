import { pinyin } from 'pinyin-pro';
import type { RecitationError } from './score.js';

/**
 * Error memory: which slips this child has made before at the same spot. A pattern is keyed by
 * error type, material and the normalised expected content (for insertions: what was added);
 * a slip whose content contains, or is contained in, an earlier pattern's is the same pattern
 * ("漏了举头望明月" and later "漏了望明月").
 */
export interface PatternMemory {
  error_type: RecitationError['type'];
  material_id: string;
  content: string;
  occurrence_count: number;
  memory_tip: string | null;
}

export function normaliseContent(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[\p{P}\p{S}\s]/gu, '');
}

export function patternContent(e: RecitationError): string {
  return normaliseContent(e.type === 'insertion' ? e.actual : e.expected);
}

/** The remembered pattern this error belongs to, if any. */
export function findPattern(patterns: readonly PatternMemory[], materialId: string, e: RecitationError): PatternMemory | undefined {
  const content = patternContent(e);
  if (!content) return undefined;
  return patterns.find((p) => p.material_id === materialId && p.error_type === e.type && (p.content === content || p.content.includes(content) || content.includes(p.content)));
}

function py(text: string): string {
  return pinyin(text, { toneType: 'symbol' });
}

/**
 * The offline memory tip, from the pinyin and the text itself. It is written once into the
 * pattern and reused; a cloud tip may replace it later, never a regenerated one.
 */
export function localTip(e: RecitationError, line: string): string {
  switch (e.type) {
    case 'mispronounced':
      return `“${e.expected}”读 ${py(e.expected)}，不是 ${py(e.actual)}。慢慢读三遍：${line}。`;
    case 'wrong_word':
      return `这里是“${e.expected}”（${py(e.expected)}），不是“${e.actual}”。把这一句连起来读三遍：${line}。`;
    case 'omission':
      return `“${e.expected}”容易漏掉。背之前先想一想这一句：${line}。`;
    case 'order':
      return `顺序是“${e.expected}”，不是“${e.actual}”。可以用手指着一个字一个字地读：${line}。`;
    case 'insertion':
      return `这里没有“${e.actual}”。背的时候慢一点，照着原文读：${line}。`;
  }
}
