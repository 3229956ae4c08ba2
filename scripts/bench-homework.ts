/**
 * npm run bench:homework [-- --pages N --seed S --levels easy,hard --scale K] — the homework path on synthetic photographed
 * pages (scripts/homework-pages): per-page time split into preprocess / OCR / grade with the
 * models loaded, and per difficulty level how many verdicts are right and how many correct
 * answers were marked wrong (the false alarms a child must never see). Each problem of the
 * ground truth is matched to the lamp's item whose box overlaps it most; a problem the lamp did
 * not find counts as a wrong verdict. `--scale 2` photographs the same pages at 2560×1920, the same
 * blur and shake spanning twice the pixels: what a camera with more pixels would give.
 */
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { modelsDirOf } from '../models/manifest.js';
import { HomeworkChecker } from '../runtime/homework/checker.js';
import type { CheckedItem } from '../scenes/homework/types.js';
import { launchChromium } from '../test/helpers/browser.js';
import { type TruthItem, makeSheet, photographSheet } from './homework-pages/generate.js';
import { matchTruth } from './homework-pages/match.js';
import { frameAt, type Level, LEVELS } from './homework-pages/photo.js';

const { values } = parseArgs({ options: { pages: { type: 'string', default: '10' }, seed: { type: 'string', default: '1000' }, verbose: { type: 'boolean', default: false }, levels: { type: 'string', default: LEVELS.join(',') }, scale: { type: 'string', default: '1' } } });
const pages = Number(values.pages);
const seed0 = Number(values.seed);
const levels = values.levels.split(',').map((l) => l.trim()) as Level[];
const frame = frameAt(Number(values.scale));
if (!(frame.scale >= 1 && frame.scale <= 4)) throw new Error(`--scale ${values.scale}: a photo 1 to 4 times 1280×960 is measured`);
const unknown = levels.filter((l) => !LEVELS.includes(l));
if (unknown.length) throw new Error(`unknown level ${unknown.join(', ')}: the levels are ${LEVELS.join(', ')}`);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.floor(s.length / 2)] as number) : NaN;
}
function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
}

interface Tally {
  pages: number;
  items: number;
  right: number;
  uncertain: number;
  missed: number;
  correctAnswers: number;
  falseAlarms: number;
  wrongAnswers: number;
  caught: number;
  times: { total: number; preprocess: number; ocr: number; grade: number }[];
}

const checker = await HomeworkChecker.load({ modelsDir: modelsDirOf({ dataDir: './var', models: { dir: '' } }) });
const browser = await launchChromium();
const tallies = new Map<string, Tally>(levels.map((l) => [l, { pages: 0, items: 0, right: 0, uncertain: 0, missed: 0, correctAnswers: 0, falseAlarms: 0, wrongAnswers: 0, caught: 0, times: [] }]));
const mistakes: string[] = [];
try {
  for (let i = 0; i < pages; i++) {
    const sheet = await makeSheet(browser, seed0 + i);
    for (const level of levels) {
      const { jpeg, truth } = photographSheet(sheet, level, frame.scale);
      const t0 = performance.now();
      const r = await checker.check(jpeg);
      const total = performance.now() - t0;
      const t = tallies.get(level) as Tally;
      t.pages++;
      t.times.push({ total, ...r.timings_ms });
      const found: CheckedItem[] = r.check.ok ? r.check.items : [];
      const items = truth.items as TruthItem[];
      const matched = matchTruth(items, found);
      for (const [k, gt] of items.entries()) {
        t.items++;
        const best = matched[k];
        const verdict = best?.verdict ?? 'missed';
        if (verdict === gt.verdict) t.right++;
        if (verdict === 'uncertain') t.uncertain++;
        if (!best) t.missed++;
        if (gt.verdict === 'correct') {
          t.correctAnswers++;
          if (verdict === 'incorrect') t.falseAlarms++;
        }
        if (gt.verdict === 'incorrect') {
          t.wrongAnswers++;
          if (verdict === 'incorrect') t.caught++;
        }
        if (verdict !== gt.verdict && (values.verbose || verdict === 'incorrect')) {
          mistakes.push(`${level}-${seed0 + i} #${gt.index} ${gt.question}${gt.student_answer} (${gt.verdict}) → ${best ? `${best.question}|${best.student_answer} ${best.verdict}${best.reason ? ` ${best.reason}` : ''}` : 'not found'}`);
        }
      }
    }
  }
} finally {
  await browser.close();
  await checker.release();
}

const f1 = (x: number): string => (Number.isFinite(x) ? x.toFixed(1) : '–');
const ms = (x: number): string => Math.round(x).toString();
console.log(`bench:homework on ${cpus().length}× ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}; ${pages} synthetic ${frame.w}×${frame.h} pages per level (seeds ${seed0}…${seed0 + pages - 1}), models loaded once`);
console.log('| level | page ms median (p90) | preprocess | OCR | grade | problems | verdicts right | uncertain | not found | correct answers marked wrong | wrong answers caught |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
const all: Tally = { pages: 0, items: 0, right: 0, uncertain: 0, missed: 0, correctAnswers: 0, falseAlarms: 0, wrongAnswers: 0, caught: 0, times: [] };
for (const [level, t] of [...tallies, ['all', all] as const]) {
  if (level !== 'all') for (const k of Object.keys(all) as (keyof Tally)[]) (all[k] as unknown) = k === 'times' ? [...all.times, ...t.times] : (all[k] as number) + (t[k] as number);
  const tm = t.times;
  console.log(
    `| ${level} | ${ms(median(tm.map((x) => x.total)))} (${ms(pct(tm.map((x) => x.total), 90))}) | ${ms(median(tm.map((x) => x.preprocess)))} | ${ms(median(tm.map((x) => x.ocr)))} | ${ms(median(tm.map((x) => x.grade)))} | ${t.items} | ${f1((100 * t.right) / t.items)} % | ${f1((100 * t.uncertain) / t.items)} % | ${f1((100 * t.missed) / t.items)} % | ${f1((100 * t.falseAlarms) / t.correctAnswers)} % (${t.falseAlarms}/${t.correctAnswers}) | ${f1((100 * t.caught) / t.wrongAnswers)} % |`,
  );
}
if (mistakes.length) console.log(`\n${values.verbose ? 'verdicts that differ' : 'marked wrong by the lamp but not wrong'}:\n${(values.verbose ? mistakes : mistakes.slice(0, 60)).join('\n')}`);
