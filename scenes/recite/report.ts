import type { Material } from './material.js';

/**
 * Daily and weekly recitation reports: pure aggregation over the period's attempts and the
 * child's error patterns, plus a local wording. The cloud words reports more warmly when it is
 * reachable; the local wording is what the family sees offline.
 */
export type Period = 'day' | 'week';

export interface AttemptRow {
  material_id: string;
  accuracy: number;
  created_at: string;
}

export interface WeakPoint {
  material_id: string;
  error_type: string;
  content: string;
  occurrence_count: number;
}

export interface ReportData {
  period: Period;
  period_start: string;
  attempts: number;
  avg_accuracy: number | null;
  materials: number;
  /** Average accuracy per kind in this period and the one before; null when there was none. */
  trend: Record<string, { now: number | null; before: number | null }>;
  weak_points: WeakPoint[];
}

const avg = (xs: number[]): number | null => (xs.length ? Math.round(xs.reduce((a, b) => a + b, 0) / xs.length) : null);

/** Local calendar day (YYYY-MM-DD) of an instant, in the lamp's time zone. */
export function localDay(at: Date): string {
  return at.toLocaleDateString('en-CA');
}

/** The period containing `day`: the day itself, or the week starting on Monday. */
export function periodBounds(period: Period, day: string): { start: Date; end: Date; previousStart: Date } {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const startDay = new Date(y, m - 1, d);
  if (period === 'week') startDay.setDate(startDay.getDate() - ((startDay.getDay() + 6) % 7));
  const len = period === 'day' ? 1 : 7;
  const end = new Date(startDay);
  end.setDate(end.getDate() + len);
  const previousStart = new Date(startDay);
  previousStart.setDate(previousStart.getDate() - len);
  return { start: startDay, end, previousStart };
}

export function aggregate(
  period: Period,
  periodStart: string,
  current: readonly AttemptRow[],
  previous: readonly AttemptRow[],
  weak: readonly WeakPoint[],
  kindOf: (materialId: string) => Material['kind'] | undefined,
): ReportData {
  const kinds = new Set([...current, ...previous].map((a) => kindOf(a.material_id) ?? 'poem'));
  const trend: ReportData['trend'] = {};
  for (const k of kinds) {
    trend[k] = {
      now: avg(current.filter((a) => (kindOf(a.material_id) ?? 'poem') === k).map((a) => a.accuracy)),
      before: avg(previous.filter((a) => (kindOf(a.material_id) ?? 'poem') === k).map((a) => a.accuracy)),
    };
  }
  return {
    period,
    period_start: periodStart,
    attempts: current.length,
    avg_accuracy: avg(current.map((a) => a.accuracy)),
    materials: new Set(current.map((a) => a.material_id)).size,
    trend,
    weak_points: [...weak].sort((a, b) => b.occurrence_count - a.occurrence_count).slice(0, 3),
  };
}

const KIND_WORDS: Record<string, string> = { poem: '古诗', text: '课文', english: '英语' };

export function localWording(r: ReportData, titleOf: (materialId: string) => string): string {
  const when = r.period === 'day' ? '今天' : '这周';
  if (r.attempts === 0) return `${when}还没有背诵记录。`;
  const parts = [`${when}背诵了 ${r.attempts} 次，${r.materials} 篇，平均 ${r.avg_accuracy} 分。`];
  for (const [kind, t] of Object.entries(r.trend)) {
    if (t.now === null || t.before === null) continue;
    const diff = t.now - t.before;
    const word = KIND_WORDS[kind] ?? kind;
    parts.push(diff > 0 ? `${word}比上次进步了 ${diff} 分。` : diff < 0 ? `${word}比上次少了 ${-diff} 分，多复习一下就好。` : `${word}保持得很稳。`);
  }
  if (r.weak_points.length) {
    parts.push(`要多注意：${r.weak_points.map((w) => `《${titleOf(w.material_id)}》的“${w.content}”`).join('、')}。`);
  }
  return parts.join('');
}
