import { pinyin } from 'pinyin-pro';
import { type Analyzed, analyze, units } from '../../models/intent/features.js';
import type { ContentLibrary, Material } from '../../scenes/recite/material.js';
import type { Slots } from '../../scenes/types.js';

/**
 * Slot extraction. For recite: the material the child names — by title, author + title, or any
 * line of its text — compared both character by character and by toneless pinyin, so an ASR
 * homophone (静夜丝, 春小) still finds the poem. For homework: the subject when said.
 */

interface Key {
  material: Material;
  kind: 'title' | 'line';
  chars: string;
  /** " jing ye si " — spaces on both ends so `includes` matches whole syllables. */
  pinyin: string;
  length: number;
}

const HAN = /\p{Script=Han}/u;
// Words that frame a request rather than name a material; removed before a one-character title is compared.
const CUE = /我|要|想|背|诵|读|一下|一首|这首|那首|首|古诗|诗|课文|吧|的|呀|啊|嗯|给你听|来|给|听|可以|吗/g;

function pinyinKey(u: string[]): string {
  const py = u.map((x) => (HAN.test(x) ? (pinyin(x, { toneType: 'none' }) as string) : x));
  return ` ${py.join(' ')} `;
}

function coreTitle(title: string): string {
  return title.replace(/[（(].*?[)）]/g, '');
}

export class MaterialMatcher {
  private keys: Key[] = [];
  /** Per material: the units of its text and its lines, for telling a recitation of it. */
  private readonly recitable = new Map<string, { vocabulary: Set<string>; lines: Set<string>; joinWith: string }>();

  constructor(private readonly library: ContentLibrary) {
    this.reload();
  }

  /** Rebuilds the index, e.g. after the cloud pushed new materials. */
  reload(): void {
    this.keys = [];
    this.recitable.clear();
    for (const m of this.library.all()) {
      const joinWith = m.kind === 'english' ? ' ' : '';
      this.recitable.set(m.id, {
        vocabulary: new Set(units(m.text)),
        lines: new Set(m.text.split(/[，。！？；：、,.!?;:\n]/).map((line) => units(line).join(joinWith)).filter(Boolean)),
        joinWith,
      });
      const t = units(coreTitle(m.title));
      if (t.length) this.keys.push({ material: m, kind: 'title', chars: t.join(m.kind === 'english' ? ' ' : ''), pinyin: pinyinKey(t), length: t.length });
      for (const line of m.text.split(/[，。！？；：、,.!?;:\n]/)) {
        const u = units(line);
        if (u.length >= 4 || (m.kind === 'english' && u.length >= 3)) {
          this.keys.push({ material: m, kind: 'line', chars: u.join(m.kind === 'english' ? ' ' : ''), pinyin: pinyinKey(u), length: u.length });
        }
      }
    }
  }

  /**
   * Whether an utterance is (a part of) reciting the given material: at least 70 % of its units
   * (three or more) occur in the text, or it is exactly one of the text's lines.
   */
  isRecitationOf(a: Analyzed, materialId: string): boolean {
    const r = this.recitable.get(materialId);
    if (!r || a.units.length === 0) return false;
    const inside = a.units.filter((u) => r.vocabulary.has(u)).length;
    if (a.units.length >= 3 && inside / a.units.length >= 0.7) return true;
    return r.lines.has(a.units.join(r.joinWith));
  }

  /** The best-matching material, or undefined when the utterance names none. */
  match(text: string): Material | undefined {
    return this.find(analyze(text))?.material;
  }

  /** The best match and whether it was found by the title or by a line of the text. */
  find(a: Analyzed): { material: Material; via: 'title' | 'line' } | undefined {
    const u = a.units;
    if (u.length === 0) return undefined;
    const chars = u.join('');
    const words = ` ${u.join(' ')} `;
    const py = ` ${a.pinyin.join(' ')} `;
    const stripped = chars.replace(CUE, '');
    let best: { m: Material; score: number; via: Key['kind'] } | undefined;
    for (const k of this.keys) {
      let score = 0;
      const weight = k.kind === 'title' ? 3 : 2;
      const isEnglish = k.material.kind === 'english';
      if (isEnglish) {
        if (words.includes(` ${k.chars} `)) score = weight * k.length;
      } else if (k.length === 1) {
        if (stripped === k.chars) score = weight;
      } else if (chars.includes(k.chars)) score = weight * k.length;
      else if (k.length >= 2 && py.includes(k.pinyin)) score = weight * k.length - 1;
      if (score === 0) continue;
      if (k.material.author && chars.includes(k.material.author)) score += 2;
      if (!best || score > best.score || (score === best.score && k.material.grade < best.m.grade)) best = { m: k.material, score, via: k.kind };
    }
    return best && { material: best.m, via: best.via };
  }
}

const SUBJECTS: [RegExp, string][] = [
  [/数学|口算|算术|算数|计算|加法|减法|乘法|除法|应用题|math/i, '数学'],
  [/语文|生字|拼音|组词|造句|看图写话|作文|chinese/i, '语文'],
  [/英语|英文|单词|english/i, '英语'],
];

export function extractSubject(text: string): string | undefined {
  return SUBJECTS.find(([re]) => re.test(text))?.[1];
}

/** Router hints for the classifier: whether the utterance names a known text, by title or by quoting it. */
export function materialHints(found: ReturnType<MaterialMatcher['find']>): string[] {
  return found ? [`material_${found.via}`] : [];
}

export function extractSlots(text: string, intent: string, found: ReturnType<MaterialMatcher['find']>): Slots {
  if (intent === 'recite') return found ? { material: found.material.title } : {};
  if (intent === 'homework') {
    const subject = extractSubject(text);
    return subject ? { subject } : {};
  }
  return {};
}
