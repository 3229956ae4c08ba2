/**
 * npm run homework:pages -- --out DIR --count N --seed S --levels easy,medium,hard [--bad] [--no-flat]
 *
 * Synthetic 口算 exercise pages photographed on a desk, each with ground truth JSON beside it:
 * DIR/<level>-<seed>.jpg + .json for seeds S..S+N-1, the clean sheet as DIR/page-<seed>-flat.png,
 * and with --bad the quality-gate photos dark-/blurred-/nopage-<seed>.jpg + .json.
 * The same seed always gives the same files.
 */
import { parseArgs } from 'node:util';
import { launchChromium } from '../test/helpers/browser.js';
import { generate } from './homework-pages/generate.js';
import { LEVELS, type Level } from './homework-pages/photo.js';

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'var/homework-pages' },
    count: { type: 'string', default: '1' },
    seed: { type: 'string', default: '1' },
    levels: { type: 'string', default: LEVELS.join(',') },
    bad: { type: 'boolean', default: false },
    'no-flat': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (values.help) {
  console.log('usage: node dist/scripts/homework-pages.js --out DIR --count N --seed S --levels easy,medium,hard [--bad] [--no-flat]');
  process.exit(0);
}

const count = Number(values.count);
const seed = Number(values.seed);
const levels = values.levels.split(',').map((l) => l.trim()).filter((l) => l !== '' && l !== 'none');
const unknown = levels.filter((l) => !(LEVELS as readonly string[]).includes(l));
if (!Number.isInteger(count) || count < 1 || !Number.isInteger(seed) || seed < 0 || unknown.length > 0) {
  console.error(`homework-pages: need --count ≥ 1, an integer --seed ≥ 0 and --levels from ${LEVELS.join(',')}${unknown.length ? ` (unknown: ${unknown.join(',')})` : ''}`);
  process.exit(2);
}

const browser = await launchChromium();
try {
  const t0 = performance.now();
  const seeds = Array.from({ length: count }, (_, i) => seed + i);
  const files = await generate(browser, { out: values.out, seeds, levels: levels as Level[], flat: !values['no-flat'], bad: values.bad }, (l) => console.log(l));
  console.log(`wrote ${files.length} files to ${values.out} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
} finally {
  await browser.close();
}
