import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { caught } from '../../test/helpers/caught.js';
import { ErrorCode, isLampError } from '../../runtime/errors.js';
import { projectRoot } from '../../runtime/paths.js';
import { tempDir } from '../../test/helpers/app.js';
import { IntentClassifier, type IntentWeights, WEIGHTS_FILE } from './classifier.js';
import { calibrate } from './train.js';

const DATA = path.join(projectRoot(), 'models', 'intent', 'data', 'utterances.jsonl');

describe('intent classifier', () => {
  const clf = IntentClassifier.load();

  it('the shipped weights were trained on the current labelled set and meet the accuracy goal', () => {
    const weights = JSON.parse(readFileSync(WEIGHTS_FILE, 'utf8')) as IntentWeights;
    expect(weights.metrics.data_sha256).toBe(createHash('sha256').update(readFileSync(DATA, 'utf8')).digest('hex'));
    expect(weights.metrics.held_out_accuracy).toBeGreaterThanOrEqual(0.95);
    expect(readFileSync(DATA, 'utf8').trim().split('\n').length).toBeGreaterThanOrEqual(600);
  });

  it.each([
    ['我要背静夜思', 'chat', 'recite'],
    ['帮我检查一下作业', 'chat', 'homework'],
    ['不背了', 'recite', 'exit_current'],
    ['白日依山尽黄河入海流', 'recite', 'continue_current'],
    ['第三题为什么错了', 'homework', 'continue_current'],
    ['你叫什么名字', 'chat', 'chat'],
  ] as const)('%s in %s → %s', (text, scene, intent) => {
    const p = clf.predict(text, scene);
    expect(p.intent).toBe(intent);
    expect(Object.values(p.probabilities).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
  });

  it('maps probability to confidence by the calibrated thresholds', () => {
    const { high, low } = clf.thresholds;
    expect(low).toBeLessThanOrEqual(high);
    for (const text of ['我要背静夜思', '嗯', '那个那个']) {
      const p = clf.predict(text, 'chat');
      expect(p.confidence).toBe(p.probability >= high ? 'HIGH' : p.probability >= low ? 'MID' : 'LOW');
    }
  });

  it('a missing or malformed weights file is a clear model error', () => {
    const dir = tempDir();
    expect(isLampError(caught(() => IntentClassifier.load(path.join(dir, 'none.json'))), ErrorCode.MODEL_MISSING)).toBe(true);
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ version: 1, classes: ['chat'], features: ['a'], weights: [[1, 2]], bias: [0], thresholds: { high: 0.9, low: 0.5 } }));
    expect(isLampError(caught(() => IntentClassifier.load(bad)), ErrorCode.MODEL_CORRUPT)).toBe(true);
  });
});

describe('calibrate', () => {
  it('HIGH covers predictions that were right ≥ 98 % of the time; below LOW they were right at most half the time', () => {
    const scored = [
      ...Array.from({ length: 40 }, (_, i) => ({ correct: true, p: 0.9 + i / 1000 })),
      ...Array.from({ length: 20 }, (_, i) => ({ correct: i % 5 !== 0, p: 0.6 + i / 100 })),
      ...Array.from({ length: 10 }, (_, i) => ({ correct: i % 3 === 0, p: 0.3 + i / 100 })),
    ];
    const { high, low } = calibrate(scored);
    const above = scored.filter((s) => s.p >= high);
    const below = scored.filter((s) => s.p <= low);
    expect(above.filter((s) => s.correct).length / above.length).toBeGreaterThanOrEqual(0.98);
    expect(above.length).toBeGreaterThanOrEqual(40);
    expect(below.filter((s) => s.correct).length / below.length).toBeLessThanOrEqual(0.5);
    expect(below.length).toBeGreaterThanOrEqual(5);
    expect(low).toBeLessThan(high);
  });
});
