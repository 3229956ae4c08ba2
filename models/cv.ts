import { createRequire } from 'node:module';
import v8 from 'node:v8';
import type * as OpenCV from '@u4/opencv4nodejs';

/**
 * OpenCV (Debian's 4.6 through @u4/opencv4nodejs), loaded once, quietly and on first use: the
 * binding prints "Info:" lines at load unless its build logger is silenced first, and loading
 * it costs ~0.4 s that a lamp which never sees a page (or runs on the simulator) should not pay
 * at start. Import `cv` from here, never the package directly.
 */
const require = createRequire(import.meta.url);
type Cv = typeof OpenCV.default;
let loaded: Cv | undefined;

function load(): Cv {
  if (!loaded) {
    // The binding's native objects and V8's incremental marking do not get along on Node 20: under
    // load the process aborts in the collector ("Check failed: marking_done_"), in sync and async
    // calls alike (seen in bench:homework after ~20 pages). Full, non-incremental collections avoid
    // it; the pauses stay a few milliseconds at the lamp's heap size.
    v8.setFlagsFromString('--no-incremental-marking');
    (require('@u4/opencv-build') as { Log: { silence: boolean } }).Log.silence = true;
    loaded = require('@u4/opencv4nodejs') as Cv;
  }
  return loaded;
}

export const cv: Cv = new Proxy({} as Cv, { get: (_, key) => load()[key as keyof Cv] });
export type Mat = OpenCV.Mat;
