import english from './content/english.json' with { type: 'json' };
import poems from './content/poems.json' with { type: 'json' };
import texts from './content/texts.json' with { type: 'json' };
import { type Material, MaterialList, isMaterial } from './material.js';

/** The materials that ship with the lamp (scenes/recite/content/*.json), checked once at load. */
export function builtinMaterials(): Material[] {
  const all: unknown[] = [...poems, ...texts, ...english];
  const bad = all.filter((m) => !isMaterial(m));
  if (bad.length) throw new Error(`content library: ${bad.length} malformed material(s), first: ${JSON.stringify(bad[0]).slice(0, 120)}`);
  return all as Material[];
}

export function builtinLibrary(): MaterialList {
  return new MaterialList(builtinMaterials());
}
