/** A text a child can recite: a classical poem, a prose text, or an English text. */
export interface Material {
  id: string;
  title: string;
  author: string;
  dynasty: string;
  grade: number;
  kind: 'poem' | 'text' | 'english';
  text: string;
}

/** The one interface every part of the lamp reads materials through. */
export interface ContentLibrary {
  all(): readonly Material[];
  get(id: string): Material | undefined;
  byTitle(title: string): Material | undefined;
}

export function isMaterial(x: unknown): x is Material {
  const m = x as Material;
  return (
    typeof m === 'object' && m !== null &&
    typeof m.id === 'string' && /^[a-z0-9-]+$/.test(m.id) &&
    typeof m.title === 'string' && m.title.length > 0 &&
    typeof m.author === 'string' && typeof m.dynasty === 'string' &&
    Number.isInteger(m.grade) && m.grade >= 1 && m.grade <= 6 &&
    (m.kind === 'poem' || m.kind === 'text' || m.kind === 'english') &&
    typeof m.text === 'string' && /[\p{L}\p{N}]/u.test(m.text)
  );
}

/** A library over a list of materials; later entries (e.g. pushed by the cloud) replace earlier ones with the same id. */
export class MaterialList implements ContentLibrary {
  private readonly byId = new Map<string, Material>();

  constructor(materials: readonly Material[]) {
    for (const m of materials) this.byId.set(m.id, m);
  }

  all(): readonly Material[] {
    return [...this.byId.values()];
  }

  get(id: string): Material | undefined {
    return this.byId.get(id);
  }

  byTitle(title: string): Material | undefined {
    return this.all().find((m) => m.title === title);
  }

  /** Adds or replaces materials (the cloud pushes new ones). */
  upsert(materials: readonly Material[]): void {
    for (const m of materials) this.byId.set(m.id, m);
  }
}
