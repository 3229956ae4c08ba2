import type { SceneName } from '../types.js';

/**
 * Offline chat: kind, short, age-appropriate, and honest — without the cloud the lamp cannot
 * answer open questions, so it says so and points to what it can do offline.
 */

const TOPICS: [RegExp, string[]][] = [
  [/你好|您好|早上好|晚上好|下午好|\bhi\b|hello|嗨|哈喽/i, ['你好呀！今天想背古诗，还是检查作业？', '你好！我在这儿呢，有什么想和我一起做的吗？']],
  [/谢谢|thank/i, ['不客气！你真有礼貌。', '不用谢，能帮到你我很开心！']],
  [/你是谁|你叫什么|名字|who are you|your name/i, ['我是你的学习小台灯，可以陪你背古诗、检查口算作业。']],
  [/累|难过|伤心|不开心|哭|生气|害怕|烦/, ['辛苦啦，抱抱你。休息一下喝口水，好了再叫我。', '有这样的感觉没关系的。要不要和爸爸妈妈说一说？我也一直在这儿陪着你。']],
  [/拜拜|再见|睡觉|晚安|bye/i, ['再见啦，明天见！', '晚安，做个好梦！']],
  [/为什么|什么|怎么|哪|谁|几|吗|多少|\?|？|why|what|how/i, ['这个问题真好！我现在还没连上网，回答不好，等连上网再告诉你好吗？', '我现在还答不上来这个问题，可以问问爸爸妈妈，或者等我连上网再问我。']],
];

const DEFAULT = [
  '我听到啦！我们可以一起背古诗，或者检查作业，你想做哪个？',
  '你说得真好！想不想背一首古诗给我听？',
  '嗯嗯，我在听。作业写完了的话，可以把本子放到灯下，我帮你检查口算。',
];

const SCENE_WORDS: Record<SceneName, string> = { chat: '聊天', recite: '背诵', homework: '检查作业' };

/** Picks a reply deterministically (pure): the same words and turn always get the same answer. */
export function offlineReply(text: string, turn: number): string {
  const options = TOPICS.find(([re]) => re.test(text))?.[1] ?? DEFAULT;
  let h = turn;
  for (const ch of text) h = (h * 31 + (ch.codePointAt(0) ?? 0)) >>> 0;
  return options[h % options.length] as string;
}

export const CHAT_TEXT = {
  clarify: '我想确认一下：你是想聊聊天，还是想背古诗，或者检查作业呀？',
  handoff: (target: SceneName): string => `你是想${SCENE_WORDS[target]}吗？说“是”我们就开始。`,
  declined: '好的，那我们接着聊。',
  back: (from: SceneName): string => (from === 'chat' ? '我在这儿呢。' : `好的，${SCENE_WORDS[from]}先停一下，想继续的时候叫我就行。`),
  image: '我看到你放的本子啦。想检查作业的话，跟我说“检查作业”。',
} as const;
