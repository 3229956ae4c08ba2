import { createRequire } from 'node:module';
import type * as OpenCV from '@u4/opencv4nodejs';

/**
 * OpenCV (Debian's 4.6 through @u4/opencv4nodejs), loaded once and quietly: the binding prints
 * "Info:" lines at load unless its build logger is silenced first. Import `cv` from here, never
 * the package directly, so that every module shares one instance and the log stays clean.
 */
const require = createRequire(import.meta.url);
(require('@u4/opencv-build') as { Log: { silence: boolean } }).Log.silence = true;

export const cv = require('@u4/opencv4nodejs') as typeof OpenCV.default;
export type Mat = OpenCV.Mat;
