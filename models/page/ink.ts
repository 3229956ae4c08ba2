import { cv, type Mat } from '../cv.js';
import { requireImage, toBgr } from './image.js';

/**
 * Which pixels are ink of which kind, on the contrast-normalised colour page (HSV, OpenCV's hue
 * 0–180). Ballpoint and gel-pen blue measure hue 100–125 with saturation 120–230 after
 * normalisation; printed black and pencil have saturation under 60. Teachers' red marks are
 * neither. Pencil answers cannot be told from print by colour: the grader uses position for those.
 */
export const BLUE_HUE: [number, number] = [95, 135];
export const BLUE_MIN_SAT = 70;
export const BLUE_MIN_VAL = 50;
/** Dark ink: value at most this (print measures 0–60, pencil 60–140, paper 230–255)… */
export const DARK_MAX_VAL = 140;
/** …and saturation at most this. */
export const DARK_MAX_SAT = 90;

export type InkKind = 'blue' | 'dark';

/** A 0/255 mask of the page's pixels that are ink of the given kind. */
export function inkMask(page: Mat, kind: InkKind): Mat {
  requireImage(page, 'inkMask');
  const hsv = toBgr(page).cvtColor(cv.COLOR_BGR2HSV);
  if (kind === 'blue') {
    return hsv.inRange(new cv.Vec3(BLUE_HUE[0], BLUE_MIN_SAT, BLUE_MIN_VAL), new cv.Vec3(BLUE_HUE[1], 255, 255));
  }
  return hsv.inRange(new cv.Vec3(0, 0, 0), new cv.Vec3(180, DARK_MAX_SAT, DARK_MAX_VAL));
}
