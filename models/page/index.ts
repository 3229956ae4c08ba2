/** The homework page pipeline: fixed OpenCV steps from a camera photo to a flat, clean page cut into lines and problems. */
export { decodeImage, MAX_IMAGE_BYTES } from './decode.js';
export { inkMarks, markBounds, MIN_IMAGE_SIDE, type InkMark } from './image.js';
export { assessQuality, HINTS } from './quality.js';
export { findPageQuad, detectPage, orderCorners, quadArea, type PageDetection } from './quad.js';
export { warpPage, PAGE_LONG_SIDE } from './warp.js';
export { deskew, estimateSkewDeg } from './deskew.js';
export { denoise, normaliseContrast } from './enhance.js';
export { inkMask, type InkKind } from './ink.js';
export { sliceLines, sliceRegions, textMask } from './slice.js';
export { preparePage, type PrepareOptions } from './pipeline.js';
export type * from './types.js';
export { comparisonRings, findComparisonCircles, eraseComparisonCircles, guessCircleSign, readCircleSign, type Circle } from './circles.js';
export { equalsSigns, hasDotsAboveAndBelow, inkExtent, isBareBar, isDiagonalCross, isMidHeightDot, isPenMark, isPrintedMark, lacksCrossing, SIGN_WINDOW, signWindow } from './signs.js';
