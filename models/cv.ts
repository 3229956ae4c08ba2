import { createRequire } from 'node:module';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
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
    // The binding tells V8 about each Mat's pixels as they are allocated and freed. A Mat freed by
    // the collector then starts a collection inside the collection, which on Node 20 waits forever
    // on V8's own lock (seen three times in a day of bench:homework: the process hung in
    // cppgc::MarkerBase, called from cv::Mat::release). Without that accounting V8 never collects
    // for the pixels' sake, so `collectGarbage()` does it after each page.
    process.env.OPENCV4NODEJS_DISABLE_EXTERNAL_MEM_TRACKING ??= '1';
    (require('@u4/opencv-build') as { Log: { silence: boolean } }).Log.silence = true;
    loaded = require('@u4/opencv4nodejs') as Cv;
  }
  return loaded;
}

export const cv: Cv = new Proxy({} as Cv, { get: (_, key) => load()[key as keyof Cv] });
export type Mat = OpenCV.Mat;

let gc: (() => void) | undefined;

/**
 * A full garbage collection now, freeing the pixels of every Mat no longer referenced (a page
 * makes hundreds, a few MB each; V8 does not count them, see `load`). Costs milliseconds; call it
 * after a page, not in a loop.
 */
export function collectGarbage(): void {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}
