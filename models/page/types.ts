import type { Mat } from '../cv.js';

/** A point in pixels, [x, y]. */
export type Point = [number, number];

/** A sheet's four corners in photo pixels, ordered top-left, top-right, bottom-right, bottom-left. */
export type Quad = [Point, Point, Point, Point];

/** Maps a point of the flattened page back to the photo (where the projector marks go). */
export type ToSource = (x: number, y: number) => Point;

export type QualityIssue = 'no_page' | 'too_dark' | 'too_bright' | 'blurry' | 'too_close' | 'tilted';

export interface QualityMetrics {
  /** Variance of the Laplacian over the page area, on the page scaled to a fixed size. */
  sharpness: number;
  /** Sharpness with noise removed and divided by the page's detail variance; blur is judged on this. */
  sharpnessNorm: number;
  /** Mean grey level (0–255) of the page area. */
  brightness: number;
  /** Fraction of page pixels that are clipped white (≥ 250). */
  clippedRatio: number;
  /** Grey level of the darkest ink on the page (1st percentile): print is 0–60 unless washed out. */
  inkLevel: number;
  /** Page quad area over frame area (0 when no page was found). */
  pageAreaRatio: number;
  /** Fraction of the frame that looks like paper (bright, unsaturated). */
  paperRatio: number;
  /** How many frame sides the paper touches (0–4). */
  touchingSides: number;
  /** Rotation of the page's top edge from horizontal, degrees, in (−45, 45]. */
  rotationDeg: number;
  /** Shortest over longest of each pair of opposite sides (1 = no perspective). */
  sideRatio: number;
}

export interface QualityReport {
  ok: boolean;
  issue?: QualityIssue;
  /** A short, kind sentence the lamp says to the child about the issue. */
  hint?: string;
  metrics: QualityMetrics;
  /** The page's corners when one was found, so later steps need not look again. */
  quad?: Quad;
}

export interface LineBand {
  y: number;
  h: number;
}

export interface Region {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface StepTimings {
  decode: number;
  quality: number;
  rectify: number;
  deskew: number;
  enhance: number;
  slice: number;
  total: number;
}

export interface PreparedPageOk {
  ok: true;
  quality: QualityReport;
  /** Colour (BGR) page: flattened, deskewed, denoised, contrast-normalised. */
  page: Mat;
  toSource: ToSource;
  /** The corners the page was cut from, in photo pixels. */
  quad: Quad;
  /** Residual rotation removed by deskew, degrees. */
  deskewDeg: number;
  lines: LineBand[];
  regions: Region[];
  timingsMs: StepTimings;
}

export interface PreparedPageRejected {
  ok: false;
  quality: QualityReport;
  timingsMs: StepTimings;
  page?: undefined;
  toSource?: undefined;
  lines?: undefined;
  regions?: undefined;
}

export type PreparedPage = PreparedPageOk | PreparedPageRejected;
