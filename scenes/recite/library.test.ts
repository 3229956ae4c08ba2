import { describe, expect, it } from 'vitest';
import { builtinMaterials } from './library.js';
import { MaterialList } from './material.js';

describe('content library', () => {
  const all = builtinMaterials();

  it('has the poems of grades 1–3 and some English, with unique ids and titles', () => {
    expect(all.filter((m) => m.kind === 'poem').length).toBeGreaterThanOrEqual(40);
    expect(all.filter((m) => m.kind === 'english').length).toBeGreaterThanOrEqual(3);
    for (const g of [1, 2, 3]) expect(all.some((m) => m.grade === g && m.kind === 'poem')).toBe(true);
    expect(new Set(all.map((m) => m.id)).size).toBe(all.length);
    expect(new Set(all.map((m) => m.title)).size).toBe(all.length);
  });

  it('poems use full-width punctuation only', () => {
    for (const m of all.filter((x) => x.kind === 'poem')) expect(m.text, m.title).not.toMatch(/[,.!?;:]/);
  });

  it('a later material with the same id replaces the earlier one', () => {
    const first = all[0]!;
    const lib = new MaterialList([...all, { ...first, text: '新的文本。' }]);
    expect(lib.get(first.id)?.text).toBe('新的文本。');
    expect(lib.all().length).toBe(all.length);
  });
});
