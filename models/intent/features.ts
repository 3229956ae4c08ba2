import { pinyin } from 'pinyin-pro';

/**
 * Text features of the intent classifier, shared by training and inference so they cannot
 * drift apart. An utterance becomes units — one per Chinese character, one per Latin word or
 * number — and the features are unit n-grams (1–3, with edge markers), toneless-pinyin n-grams
 * (1–2, so ASR homophones such as 被古诗/背古诗 share features), and the active scene both as a
 * feature of its own and joined with every unigram and bigram (the same words mean different
 * things in different scenes).
 */

const HAN = /\p{Script=Han}/u;

/** NFKC (full-width → half-width), lower case, punctuation and spaces dropped. */
export function units(text: string): string[] {
  const out: string[] = [];
  const norm = text.normalize('NFKC').toLowerCase();
  const re = /\p{Script=Han}|[a-z0-9]+/gu;
  for (const m of norm.matchAll(re)) out.push(m[0]);
  return out;
}

/** An utterance's units and their toneless pinyin (Latin units stand for themselves). */
export interface Analyzed {
  units: string[];
  pinyin: string[];
}

export function analyze(text: string): Analyzed {
  const u = units(text);
  if (u.length === 0) return { units: u, pinyin: [] };
  // One call for the whole utterance keeps pinyin-pro's context-aware readings of polyphones.
  const py = pinyin(u.map((x) => (HAN.test(x) ? x : '_')).join(''), { toneType: 'none', type: 'array' });
  return { units: u, pinyin: u.map((x, i) => (HAN.test(x) ? (py[i] ?? x) : x)) };
}

/**
 * Cue words: a small lexicon of what children say when they ask for each thing. They generalise
 * beyond the labelled set (a new way of saying 不想背了 still has 不想), and are joined with the
 * scene like the n-grams.
 */
const CUES: [string, RegExp][] = [
  ['recite', /背|背诵|默背|朗诵|recite|poem|古诗|课文|诗/],
  ['homework', /作业|坐业|检查|检察|批改|改一下|口算|算式|题|对不对|对吗|homework|check|math/],
  ['exit', /不想|不要|不背|不做|不检查|不写|退出|结束|算了|休息|停|别|不玩|stop|quit|done|enough|不学/],
  ['continue', /再来|再背|再试|继续|下一|提示|准备好|开始|忘了|后面|接着|ready|again|next|hint|好了|拍好|放好|改好/],
  ['question', /为什么|什么|怎么|哪|谁|几|吗|呢|多少|\?|why|what|how|where|who/],
  ['feeling', /累|开心|难过|喜欢|讨厌|害怕|好玩|无聊/],
];

export function extractFeatures(input: string | Analyzed, scene: string, hints: readonly string[] = []): string[] {
  const a = typeof input === 'string' ? analyze(input) : input;
  const u = a.units;
  const feats: string[] = [`s=${scene}`];
  const joined = u.join('');
  for (const [name, re] of CUES) {
    if (re.test(joined)) feats.push(`c:${name}`, `${scene}|c:${name}`);
  }
  for (const h of hints) feats.push(`h:${h}`, `${scene}|h:${h}`);
  const padded = ['^', ...u, '$'];
  for (let i = 0; i < padded.length; i++) {
    const a = padded[i] as string;
    const b = padded[i + 1];
    const c = padded[i + 2];
    if (a !== '^' && a !== '$') {
      feats.push(`u:${a}`, `${scene}|u:${a}`);
    }
    if (b !== undefined) feats.push(`b:${a}${b}`);
    if (b !== undefined && c !== undefined) feats.push(`t:${a}${b}${c}`);
  }
  const py = a.pinyin;
  for (let i = 0; i < py.length; i++) {
    feats.push(`p:${py[i]}`);
    if (i + 1 < py.length) feats.push(`pp:${py[i]} ${py[i + 1]}`);
  }
  if (u.length <= 2) feats.push('len:short');
  else if (u.length >= 12) feats.push('len:long');
  return feats;
}
