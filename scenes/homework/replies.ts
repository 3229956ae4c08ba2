import type { CheckedItem } from './types.js';

const DIGITS: Record<string, number> = { 零: 0, 〇: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };

/** Chinese numerals up to 99 (三, 十二, 二十, 二十七) or digits. */
export function parseChineseNumber(s: string): number | undefined {
  if (/^\d{1,3}$/.test(s)) return Number(s);
  const m = /^([一二两三四五六七八九])?(十)?([一二三四五六七八九])?$/.exec(s);
  if (!m || s.length === 0) return undefined;
  const [, a, ten, b] = m;
  if (!ten) return a && !b ? DIGITS[a] : undefined;
  return (a ? (DIGITS[a] as number) : 1) * 10 + (b ? (DIGITS[b] as number) : 0);
}

/** The problem a child asks about: "第三题为什么错了", "第12题", "3题怎么做". */
export function ordinalIn(text: string): number | undefined {
  const m = /第?\s*([0-9]{1,3}|[一二两三四五六七八九十]{1,3})\s*[道个]?题/.exec(text);
  if (!m) return undefined;
  const n = parseChineseNumber(m[1] as string);
  return n !== undefined && n > 0 ? n : undefined;
}

function list(indices: number[]): string {
  const named = indices.slice(0, 3).map((i) => `第 ${i} 题`);
  return named.length <= 1 ? (named[0] ?? '') : `${named.slice(0, -1).join('、')}和${named[named.length - 1]}`;
}

/**
 * The short spoken result. Counts what is right, names what to look at again (never "错了"
 * harshly), and says which problems the lamp is still unsure of: those are never counted wrong.
 */
export function summarise(items: CheckedItem[], opts: { afterCloud?: boolean } = {}): string {
  const total = items.length;
  const correct = items.filter((it) => it.verdict === 'correct').length;
  const wrong = items.filter((it) => it.verdict === 'incorrect').map((it) => it.index);
  const unsure = items.filter((it) => it.verdict === 'uncertain');
  const pending = unsure.filter((it) => it.pending_cloud).map((it) => it.index);
  const parts: string[] = [];
  const lead = opts.afterCloud ? '老师也看完啦。' : '';
  if (wrong.length === 0 && unsure.length === 0) return `${lead}${total} 道题全对了，真棒！`;
  parts.push(`${lead}${total} 道题对了 ${correct} 道`);
  if (wrong.length > 0) parts.push(wrong.length <= 3 ? `${list(wrong)}再看看` : `有 ${wrong.length} 道题再看看，从第 ${wrong[0]} 题开始`);
  if (pending.length > 0) parts.push(`${pending.length <= 3 ? list(pending) : `还有 ${pending.length} 道题`}我请老师帮忙看看`);
  const unread = unsure.filter((it) => !it.pending_cloud).map((it) => it.index);
  if (unread.length > 0) parts.push(`${unread.length <= 3 ? list(unread) : `还有 ${unread.length} 道题`}我没看清楚`);
  return `${parts.join('，')}。`;
}

/** The answer to "第 N 题为什么错了": what was written, what it should be, or why the lamp is unsure. */
export function explainItem(item: CheckedItem): string {
  const q = `第 ${item.index} 题`;
  switch (item.verdict) {
    case 'correct':
      return `${q}是对的，${item.question}${item.kind === 'fill_blank' ? `括号里填 ${item.student_answer}` : item.student_answer}，做得好！`;
    case 'incorrect':
      if (item.reason === 'blank') return `${q}还没有写答案哦，${item.question}，算一算再写上吧。`;
      if (item.judged_by === 'cloud') return `${q}老师看了，觉得要再想一想${item.judgment_basis ? `：${item.judgment_basis}` : '。'}`;
      return `${q}是 ${item.question}，你写的是 ${item.student_answer}，正确答案是 ${item.correct_answer ?? '？'}。再算一遍试试？`;
    case 'uncertain':
      if (item.pending_cloud) return `${q}我还拿不准，已经请老师帮忙看了，一会儿告诉你。`;
      return `${q}我没看清楚，你能把它读给我听吗？`;
  }
}
