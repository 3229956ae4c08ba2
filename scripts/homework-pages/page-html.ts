/**
 * One exercise sheet as HTML: printed title, name line and problems in WenQuanYi Micro Hei,
 * the child's answers in Comic Neue (Droid Sans Fallback for Chinese characters) in pen or pencil,
 * each answer a little off in size, position and slant the way a child writes.
 */
import type { Problem, ProblemSet } from './problems.js';
import type { Rng } from './rng.js';

export interface Layout {
  orientation: 'portrait' | 'landscape';
  /** Sheet size in CSS pixels (A5 at 5 px/mm). */
  width: number;
  height: number;
  columns: number;
  lesson: number;
  paper: string;
  ink: string;
  pencil: boolean;
  /** Starting printed font size in CSS px; the browser shrinks it until the sheet fits. */
  fontSize: number;
}

const A5_LONG = 1050;
const A5_SHORT = 742;

/** Columns, orientation and how many grid problems fit them. */
export function chooseLayout(rng: Rng): Layout & { count: number } {
  const columns = rng.weighted({ 2: 3, 3: 4, 4: 3 } as Record<string, number>);
  const cols = Number(columns);
  const orientation = cols === 4 ? 'landscape' : cols === 2 ? 'portrait' : rng.chance(0.5) ? 'landscape' : 'portrait';
  const maxCount = orientation === 'portrait' ? (cols === 2 ? 28 : 36) : cols === 3 ? 30 : 40;
  const count = rng.int(20, maxCount);
  const pencil = rng.chance(0.25);
  return {
    orientation,
    width: orientation === 'landscape' ? A5_LONG : A5_SHORT,
    height: orientation === 'landscape' ? A5_SHORT : A5_LONG,
    columns: cols,
    lesson: rng.int(1, 30),
    paper: rng.pick(['#ffffff', '#fdfbf4', '#fbf7ea', '#f8f4e6', '#fffef8']),
    ink: pencil ? rng.pick(['#2e2e31', '#38383b', '#333336']) : rng.pick(['#1c3c9c', '#213f9a', '#1a2d7c', '#2947ad', '#1e3590']),
    pencil,
    fontSize: 30,
    count,
  };
}

const NAMES = ['王小明', '李思雨', '张子涵', '刘一诺', '陈浩然', '杨欣怡', '赵宇轩', '黄梓萱'];

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Handwriting: em-relative jitter so it follows the printed size when the sheet is fitted. */
function hw(rng: Rng, i: number, text: string, centred = false): string {
  const size = (centred ? rng.range(0.9, 1.05) : rng.range(1.0, 1.28)).toFixed(2);
  const dx = (centred ? rng.range(-0.06, 0.06) : rng.range(-0.05, 0.25)).toFixed(2);
  const dy = (centred ? rng.range(-0.06, 0.06) : rng.range(-0.12, 0.1)).toFixed(2);
  const rot = rng.range(-7, 7).toFixed(1);
  const skew = rng.range(-8, 2).toFixed(1);
  const move = centred ? `translate(calc(-50% + ${dx}em),calc(-50% + ${dy}em))` : `translate(${dx}em,${dy}em)`;
  return `<span class="hw" data-i="${i}" style="font-size:${size}em;transform:${move} rotate(${rot}deg) skewX(${skew}deg)">${esc(text)}</span>`;
}

function itemHtml(rng: Rng, p: Problem, i: number): string {
  const a = (centred = false) => (p.blank || p.student === '' ? '' : hw(rng, i, p.student, centred));
  switch (p.slot) {
    case 'end':
      return `<span class="item" data-i="${i}">${esc(p.before)}<span class="slot end${p.kind === 'remainder' ? ' long' : ''}" data-s="${i}">${a()}</span></span>`;
    case 'paren':
      return `<span class="item" data-i="${i}">${esc(p.before)}<span class="slot paren" data-s="${i}">${a()}</span>${esc(p.after)}</span>`;
    case 'circle':
      return `<span class="item" data-i="${i}">${esc(p.before)}<span class="slot circle" data-s="${i}">${a(true)}</span>${esc(p.after)}</span>`;
    case 'line':
      return `<div class="item wide" data-i="${i}"><div>${esc(p.before)}</div><div class="ans">答：<span class="slot line" data-s="${i}">${a()}</span></div></div>`;
    case 'boxes': {
      const [label, py] = p.before.split('：') as [string, string];
      const chars = [...p.student];
      const boxes = Array.from({ length: p.boxes ?? 2 }, (_, k) => `<span class="box">${p.blank || !chars[k] ? '' : hw(rng, i, chars[k] as string, true)}</span>`).join('');
      return `<div class="item wide" data-i="${i}">${esc(label)}：<span class="pyw"><span class="py">${esc(py)}</span><span class="slot boxes" data-s="${i}">${boxes}</span></span></div>`;
    }
  }
}

export function pageHtml(rng: Rng, layout: Layout, set: ProblemSet): string {
  const grid = set.problems.map((p, i) => ({ p, i })).filter((x) => !x.p.wide);
  const wide = set.problems.map((p, i) => ({ p, i })).filter((x) => x.p.wide);
  const cells = grid.map(({ p, i }) => `<div class="cell">${itemHtml(rng, p, i)}</div>`).join('');
  const name = rng.chance(0.8) ? hw(rng, -1, rng.pick(NAMES)) : '';
  // one numbered section per kind of full-width item: 二、看拼音，写词语。 then 解决问题。
  const sections = [['看拼音，写词语。', 'boxes'], ['解决问题。', 'line']] as const;
  let wideHtml = '';
  let n = 0;
  for (const [title, slot] of sections) {
    const these = wide.filter((x) => x.p.slot === slot);
    if (these.length === 0) continue;
    wideHtml += `<div class="sec">${['二', '三'][n++]}、${title}</div>${these.map(({ p, i }) => itemHtml(rng, p, i)).join('')}`;
  }
  const weight = layout.pencil ? 400 : rng.pick([400, 700]);
  return `<!doctype html><html><head><meta charset="utf-8"><style>
html,body{margin:0;padding:0;background:#777}
#page{--f:${layout.fontSize}px;width:${layout.width}px;height:${layout.height}px;background:${layout.paper};position:relative;overflow:hidden;box-sizing:border-box;
  padding:34px 46px 30px;font-family:'WenQuanYi Micro Hei',sans-serif;color:#141414;font-size:var(--f)}
.title{text-align:center;font-size:calc(var(--f)*1.1);font-weight:bold;letter-spacing:.12em}
.meta{display:flex;justify-content:space-between;font-size:calc(var(--f)*.68);margin:.5em .5em .9em;white-space:nowrap}
.fill{display:inline-block;border-bottom:1px solid #222;width:5em;text-align:center;height:1.25em;vertical-align:bottom}
.sec{font-size:calc(var(--f)*.75);margin:.5em 0 .6em}
.grid{display:grid;grid-template-columns:repeat(${layout.columns},minmax(0,1fr));row-gap:calc(var(--f)*.95);column-gap:calc(var(--f)*.6)}
.cell{min-width:0;white-space:nowrap}
.item{white-space:nowrap;letter-spacing:.02em}
.wide{display:block;margin:.3em 0 .9em;font-size:calc(var(--f)*.85);white-space:normal}
.wide .ans{margin-top:.5em}
.slot{display:inline-block;position:relative;vertical-align:baseline}
.end{min-width:2.8em}.end.long{min-width:4.4em}
.paren{min-width:2.4em;text-align:center}
.circle{width:1.2em;height:1.2em;border:1.6px solid #141414;border-radius:50%;margin:0 .25em;vertical-align:-.2em;text-align:center;line-height:1.2em;box-sizing:border-box}
.circle .hw,.box .hw{position:absolute;left:50%;top:50%;margin:0;line-height:1}
.line{min-width:7em;border-bottom:1px solid #333}
.pyw{display:inline-flex;flex-direction:column;align-items:center;vertical-align:top;margin-left:.4em}
.py{font-family:'DejaVu Sans','WenQuanYi Micro Hei',sans-serif;font-size:.85em;letter-spacing:.08em}
.boxes{display:inline-flex}
.box{width:1.9em;height:1.9em;border:1px solid #333;position:relative;display:inline-flex;align-items:center;justify-content:center;
  background:linear-gradient(#0000 calc(50% - .5px),#9998 calc(50% - .5px),#9998 calc(50% + .5px),#0000 calc(50% + .5px)),
  linear-gradient(90deg,#0000 calc(50% - .5px),#9998 calc(50% - .5px),#9998 calc(50% + .5px),#0000 calc(50% + .5px))}
.box+.box{border-left:none}
.hw{display:inline-block;font-family:'Comic Neue','Droid Sans Fallback',cursive;font-weight:${weight};color:${layout.ink};${layout.pencil ? 'opacity:.9;' : ''}margin-left:.15em;white-space:nowrap;line-height:1}
.paren .hw{margin-left:0}
.foot{position:absolute;bottom:14px;left:0;right:0;text-align:center;font-size:13px;color:#555}
</style></head><body><div id="page">
<div class="title">口算练习&#12288;第${layout.lesson}课</div>
<div class="meta"><span>姓名：<span class="fill">${name}</span></span><span>日期：<span class="fill"></span></span>${layout.orientation === 'landscape' ? '<span>用时：<span class="fill"></span></span>' : ''}<span>得分：<span class="fill"></span></span></div>
<div class="sec">一、直接写出得数。</div>
<div class="grid">${cells}</div>
${wideHtml}
<div class="foot">— ${layout.lesson * 2 + 1} —</div>
</div></body></html>`;
}
