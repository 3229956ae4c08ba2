/**
 * npm run train:intent — trains the intent classifier on models/intent/data/utterances.jsonl.
 * The shipped model is trained on the 80 % training split only, so the held-out accuracy it
 * reports is the accuracy of exactly the weights written to models/intent/weights.json.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { INTENTS, type IntentWeights, WEIGHTS_FILE } from '../models/intent/classifier.js';
import { type Labelled, calibrate, isHeldOut, predictWith, searchOptions, train } from '../models/intent/train.js';
import { MaterialMatcher, materialHints } from '../runtime/turn/slots.js';
import { analyze } from '../models/intent/features.js';
import { builtinLibrary } from '../scenes/recite/library.js';
import { projectRoot } from '../runtime/paths.js';

const DATA = path.join(projectRoot(), 'models', 'intent', 'data', 'utterances.jsonl');
const SCENES = ['chat', 'recite', 'homework'];

const raw = readFileSync(DATA, 'utf8');
const matcher = new MaterialMatcher(builtinLibrary());
const data: Labelled[] = raw
  .split('\n')
  .filter((l) => l.trim())
  .map((line, i) => {
    const u = JSON.parse(line) as Labelled;
    if (!SCENES.includes(u.scene) || !INTENTS.includes(u.intent) || typeof u.text !== 'string') throw new Error(`line ${i + 1}: bad example ${line}`);
    return { ...u, hints: materialHints(matcher.find(analyze(u.text))) };
  });
const trainSet = data.filter((u) => !isHeldOut(u));
const testSet = data.filter(isHeldOut);

const t0 = performance.now();
const search = searchOptions(trainSet);
const thresholds = calibrate(search.scored);
const model = train(trainSet, search.opts);
const trainMs = performance.now() - t0;

const index = new Map(model.features.map((f, i) => [f, i]));
const confusion: Record<string, Record<string, number>> = Object.fromEntries(INTENTS.map((a) => [a, Object.fromEntries(INTENTS.map((b) => [b, 0]))]));
const byConfidence = { HIGH: { n: 0, right: 0 }, MID: { n: 0, right: 0 }, LOW: { n: 0, right: 0 } };
let right = 0;
const mistakes: string[] = [];
for (const u of testSet) {
  const probs = predictWith(model, index, u);
  const best = probs.indexOf(Math.max(...probs));
  const predicted = INTENTS[best] as string;
  const p = probs[best] as number;
  const conf = p >= thresholds.high ? 'HIGH' : p >= thresholds.low ? 'MID' : 'LOW';
  (confusion[u.intent] as Record<string, number>)[predicted]! += 1;
  byConfidence[conf].n++;
  if (predicted === u.intent) {
    right++;
    byConfidence[conf].right++;
  } else mistakes.push(`${u.scene}\t${u.text}\texpected ${u.intent}, got ${predicted} (${p.toFixed(2)} ${conf})`);
}

const metrics = {
  data_sha256: createHash('sha256').update(raw).digest('hex'),
  examples: data.length,
  train_size: trainSet.length,
  held_out_size: testSet.length,
  held_out_accuracy: Math.round((right / testSet.length) * 10000) / 10000,
  held_out_by_confidence: byConfidence,
  confusion,
  features: model.features.length,
  train_options: search.opts,
  cv_accuracy: Math.round(search.cvAccuracy * 10000) / 10000,
  train_ms: Math.round(trainMs),
};
const weights: IntentWeights = { version: 1, ...model, thresholds, metrics };
const tmp = `${WEIGHTS_FILE}.tmp`;
writeFileSync(tmp, JSON.stringify(weights) + '\n');
renameSync(tmp, WEIGHTS_FILE);

console.log(`examples: ${data.length} (train ${trainSet.length}, held out ${testSet.length}); features: ${model.features.length}; trained in ${Math.round(trainMs)} ms`);
console.log(`options: ${JSON.stringify(search.opts)} (5-fold CV accuracy on the training split ${(search.cvAccuracy * 100).toFixed(1)} %)`);
console.log(`thresholds: HIGH ≥ ${thresholds.high}, MID ≥ ${thresholds.low}`);
console.log(`held-out accuracy: ${(metrics.held_out_accuracy * 100).toFixed(1)} %`);
for (const [c, v] of Object.entries(byConfidence)) console.log(`  ${c}: ${v.n} predictions, ${v.n ? ((v.right / v.n) * 100).toFixed(1) : '-'} % right`);
if (mistakes.length) console.log(`held-out mistakes:\n  ${mistakes.join('\n  ')}`);
console.log(`wrote ${path.relative(projectRoot(), WEIGHTS_FILE)}`);
