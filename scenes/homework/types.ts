/** What the lamp decided about one problem on a page. */
export type Verdict = 'correct' | 'incorrect' | 'uncertain';

export type ItemKind = 'expression' | 'fill_blank' | 'compare' | 'remainder' | 'not_arithmetic' | 'ambiguous';

export interface CheckedItem {
  /** 1-based number in reading order: what the child says ("第三题"). */
  index: number;
  question: string;
  student_answer: string;
  correct_answer: string | null;
  verdict: Verdict;
  confidence: number;
  /** [x, y, w, h] in the photo's pixels: where the projector puts the mark. */
  bbox: [number, number, number, number];
  kind: ItemKind;
  /** Why the verdict is what it is, e.g. 'blank', 'low_confidence', 'look_alike_in_answer'. */
  reason?: string;
  /** Who judged it: the lamp itself or the cloud's grading agent. */
  judged_by: 'lamp' | 'cloud';
  judgment_basis?: string;
  /** Uncertain items sent to the cloud and not answered yet. */
  pending_cloud?: boolean;
}

export type QualityIssue = 'no_page' | 'too_dark' | 'too_bright' | 'blurry' | 'too_close' | 'tilted' | 'no_frame' | 'no_text';

/** The runtime's look at one page, handed to the scene as the image event's context. */
export type PageCheck =
  | { ok: true; check_id: string; items: CheckedItem[]; timings_ms: Record<string, number> }
  | { ok: false; issue: QualityIssue; hint: string }
  /** OCR models are missing or failed to load: the lamp cannot read pages right now. */
  | { ok: false; issue: 'unavailable'; hint: string };

/** The cloud's answer to grade_homework, per item. */
export interface CloudGrade {
  index: number;
  verdict: Verdict;
  judgment_basis?: string;
  correct_answer?: string;
}
