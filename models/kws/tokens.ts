import { pinyin } from 'pinyin-pro';
import { ErrorCode, LampError } from '../../runtime/errors.js';

/**
 * Keywords in the token form of sherpa-onnx's Chinese KWS model (zipformer, wenetspeech):
 * each syllable as its initial and its toned final, then "@" and the keyword as it is reported,
 * e.g. 小爱同学 → "x iǎo ài t óng x ué @小爱同学". This is what sherpa's `text2token
 * --tokens-type ppinyin` writes (pypinyin's initials in non-strict mode, so y and w count as
 * initials: 问 → "w èn"; a syllable without an initial is one token: 爱 → "ài").
 */

/** Non-strict initials, two-letter ones first so that "zh" is not read as "z" + "h…". */
const INITIALS = ['zh', 'ch', 'sh', 'b', 'p', 'm', 'f', 'd', 't', 'n', 'l', 'g', 'k', 'h', 'j', 'q', 'x', 'r', 'z', 'c', 's', 'y', 'w'];

/** One syllable with tone marks (e.g. "xiǎo") → its tokens (["x", "iǎo"]). */
export function syllableTokens(syllable: string): string[] {
  const s = syllable.normalize('NFC');
  const initial = INITIALS.find((i) => s.startsWith(i) && s.length > i.length);
  return initial ? [initial, s.slice(initial.length)] : [s];
}

/** A Chinese keyword → its line for the keywords file. */
export function keywordLine(keyword: string): string {
  const text = keyword.trim();
  const chars = [...text.replace(/\s+/g, '')];
  if (chars.length === 0) throw new LampError(ErrorCode.CONFIG_INVALID, 'empty wake word');
  const notHan = chars.filter((c) => !/\p{Script=Han}/u.test(c));
  if (notHan.length) {
    throw new LampError(ErrorCode.CONFIG_INVALID, `wake word ${text} has characters the Chinese keyword model cannot spell: ${notHan.join(' ')}`, { keyword: text });
  }
  // Dictionary readings without tone sandhi (一 stays yī), as pypinyin gives them to sherpa's tool.
  const syllables = pinyin(chars.join(''), { type: 'array', toneType: 'symbol', toneSandhi: false });
  return `${syllables.flatMap(syllableTokens).join(' ')} @${text}`;
}

/**
 * Keywords → lines of the keywords file. With the model's token table, every token is checked:
 * sherpa drops a line with an unknown token without a word, and the lamp would then never wake.
 */
export function keywordsToTokens(keywords: string[], vocabulary?: ReadonlySet<string>): string[] {
  const lines = keywords.map(keywordLine);
  if (vocabulary) {
    for (const line of lines) {
      const [tokens = '', keyword = ''] = line.split(' @');
      const unknown = tokens.split(' ').filter((t) => !vocabulary.has(t));
      if (unknown.length) {
        throw new LampError(ErrorCode.CONFIG_INVALID, `wake word ${keyword} needs tokens the keyword model does not have: ${unknown.join(' ')}`, { keyword, unknown });
      }
    }
  }
  return lines;
}

/** The symbols of a sherpa tokens.txt ("<symbol> <id>" per line). */
export function parseTokens(text: string): Set<string> {
  const out = new Set<string>();
  for (const line of text.split('\n')) {
    const parts = line.trim().split(/\s+/);
    if (parts.length >= 2 && parts[0]) out.add(parts[0]);
  }
  return out;
}
