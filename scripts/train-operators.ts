/**
 * npm run train:operators [-- --seed S --pages N --samples FILE] — trains the operator-shape
 * classifier (models/page/operator-shape.ts) on signs cut from generated homework pages at every
 * difficulty level (scripts/operator-shapes/harvest.ts), and writes models/page/operator-weights.json.
 * Pages whose seed is a multiple of 5 are held out: the shipped weights are trained on the rest
 * only, so the held-out figures they carry are those of exactly these weights. The "sure"
 * threshold is the lowest probability above which no held-out sign the recogniser read as an
 * operator was classed wrong (the lamp asks the classifier about those only; "=" signs are in
 * the training so that it knows them), and never below 0.99.
 * Harvesting reads the pages with the OCR models (about 5 s per seed); `--samples` keeps the
 * harvest in a JSONL file and reuses it when it exists.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { modelsDirOf } from '../models/manifest.js';
import { OcrEngine } from '../models/ocr/index.js';
import { forward, OPERATOR_SIGNS, OPERATOR_WEIGHTS_FILE, type OperatorWeights } from '../models/page/operator-shape.js';
import { SIGN_WINDOW } from '../models/page/signs.js';
import { launchChromium } from '../test/helpers/browser.js';
import { LEVELS } from './homework-pages/photo.js';
import { harvestPage, type SignSample } from './operator-shapes/harvest.js';
import { DEFAULT_TRAIN, train } from './operator-shapes/train.js';

const { values } = parseArgs({ options: { seed: { type: 'string', default: '60000' }, pages: { type: 'string', default: '150' }, samples: { type: 'string' } } });
const seed0 = Number(values.seed);
const pages = Number(values.pages);
/** Never sure below this, whatever the held-out pages allow. */
const MIN_SURE = 0.99;

async function harvest(): Promise<SignSample[]> {
  if (values.samples && existsSync(values.samples)) {
    return readFileSync(values.samples, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as SignSample);
  }
  const ocr = await OcrEngine.load({ modelsDir: modelsDirOf({ dataDir: './var', models: { dir: '' } }) });
  const browser = await launchChromium();
  const out: SignSample[] = [];
  try {
    for (let s = seed0; s < seed0 + pages; s++) {
      for (const level of LEVELS) out.push(...(await harvestPage(browser, ocr, s, level)));
      if ((s - seed0) % 10 === 9) console.log(`harvested ${s - seed0 + 1}/${pages} seeds: ${out.length} signs`);
    }
  } finally {
    await browser.close();
    await ocr.release();
  }
  if (values.samples) writeFileSync(values.samples, out.map((x) => JSON.stringify(x)).join('\n') + '\n');
  return out;
}

const samples = await harvest();
const heldOut = (x: SignSample): boolean => x.seed % 5 === 0;
const trainSet = samples.filter((x) => !heldOut(x));
const testSet = samples.filter(heldOut);
const t0 = performance.now();
const trained = train(trainSet.map((x) => ({ x: x.x, y: OPERATOR_SIGNS.indexOf(x.sign) })), OPERATOR_SIGNS.length, SIGN_WINDOW);
const trainMs = performance.now() - t0;
// The weights as the file holds them (5 decimals), so that the held-out figures are theirs.
const round = (xs: number[]): number[] => xs.map((v) => Math.round(v * 1e5) / 1e5);
const net = { w1: trained.w1.map(round), b1: round(trained.b1), w2: trained.w2.map(round), b2: round(trained.b2) };

const judged = testSet.map((x) => {
  const { probs } = forward(net, x.x);
  const best = probs.indexOf(Math.max(...probs));
  return { x, p: probs[best] as number, sign: OPERATOR_SIGNS[best] as string };
});
const wrong = judged.filter((j) => j.sign !== j.x.sign);
const asked = judged.filter((j) => j.x.read !== '=');
const sure = Math.max(MIN_SURE, ...asked.filter((j) => j.sign !== j.x.sign).map((j) => Math.min(1, j.p + 1e-6)));
const sureOnes = asked.filter((j) => j.p >= sure);
const weights: OperatorWeights = {
  version: 1,
  signs: [...OPERATOR_SIGNS],
  window: SIGN_WINDOW,
  ...net,
  sure: Math.round(sure * 1e6) / 1e6,
  trained: {
    // The held-out accuracy is over all signs; the sure share and errors over those read as operators.
    pages: `seeds ${seed0}–${seed0 + pages - 1} not a multiple of 5, levels ${LEVELS.join(', ')}; ${JSON.stringify(DEFAULT_TRAIN)}`,
    samples: trainSet.length,
    heldOut: { samples: testSet.length, accuracy: Math.round((1 - wrong.length / testSet.length) * 10000) / 10000, sureShare: Math.round((sureOnes.length / asked.length) * 10000) / 10000, sureErrors: sureOnes.filter((j) => j.sign !== j.x.sign).length },
  },
};
const tmp = `${OPERATOR_WEIGHTS_FILE}.tmp`;
writeFileSync(tmp, JSON.stringify(weights) + '\n');
renameSync(tmp, OPERATOR_WEIGHTS_FILE);

console.log(`signs: ${samples.length} (train ${trainSet.length}, held out ${testSet.length}); trained in ${Math.round(trainMs / 1000)} s`);
for (const level of LEVELS) {
  const mine = judged.filter((j) => j.x.level === level);
  const right = mine.filter((j) => j.sign === j.x.sign).length;
  const recogniser = mine.filter((j) => j.x.read.replace(/[xX*]/, '×') === j.x.sign).length;
  console.log(`  ${level}: held out ${mine.length}, classed right ${right}, read right by the recogniser ${recogniser}`);
}
console.log(`held-out accuracy ${(weights.trained.heldOut.accuracy * 100).toFixed(2)} %; sure at p ≥ ${weights.sure}: ${(weights.trained.heldOut.sureShare * 100).toFixed(1)} % of the ${asked.length} read as operators, ${weights.trained.heldOut.sureErrors} wrong`);
for (const j of wrong) console.log(`  wrong: seed ${j.x.seed} ${j.x.level} ${j.x.sign} read ${j.x.read}, classed ${j.sign} at ${j.p.toFixed(4)}`);
