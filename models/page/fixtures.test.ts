import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { preparePage } from './pipeline.js';
import { cornerError } from './testing.js';
import type { Quad } from './types.js';

/**
 * The page pipeline over the synthetic homework photos of test/fixtures/homework (made by
 * scripts/homework-pages.ts): easy and medium pages must pass the quality gate with the sheet's
 * corners found, and the photos made to be refused must be refused for the right reason.
 */
const DIR = join(import.meta.dirname, '../../test/fixtures/homework');
const fixtures = existsSync(DIR) ? readdirSync(DIR).filter((f) => f.endsWith('.jpg') && existsSync(join(DIR, f.replace(/\.jpg$/, '.json')))) : [];

interface Truth {
  level?: string;
  expected_issue?: string;
  page?: { quad?: Quad };
}

describe.skipIf(fixtures.length === 0)('preparePage on the homework fixtures', () => {
  for (const file of fixtures) {
    const truth = JSON.parse(readFileSync(join(DIR, file.replace(/\.jpg$/, '.json')), 'utf8')) as Truth;
    if (truth.expected_issue) {
      it(`refuses ${file} as ${truth.expected_issue}`, async () => {
        const r = await preparePage(readFileSync(join(DIR, file)));
        expect(r.ok).toBe(false);
        expect(r.quality.issue, JSON.stringify(r.quality.metrics)).toBe(truth.expected_issue);
      });
    } else if (truth.level === 'easy' || truth.level === 'medium') {
      it(`prepares ${file}`, async () => {
        const r = await preparePage(readFileSync(join(DIR, file)));
        expect(r.ok, JSON.stringify(r.quality)).toBe(true);
        if (!r.ok) return;
        if (truth.page?.quad) expect(cornerError(r.quad, truth.page.quad)).toBeLessThan(0.02);
        expect(r.lines.length).toBeGreaterThan(2);
        expect(r.regions.length).toBeGreaterThan(4);
      });
    }
  }
});
