import type { Pcm } from '../../drivers/wav.js';
import { float32ToInt16, int16ToFloat32 } from './pcm.js';

/**
 * Band-limited resampling with a Kaiser-windowed sinc kernel. Used where audio from one source
 * (espeak-ng at 22050 Hz, a neural voice at 22050/24000 Hz) must feed a model that listens at
 * 16 kHz. When going down, the kernel's cutoff follows the lower rate so that nothing above the
 * new Nyquist frequency folds back as noise into the speech band.
 */
export interface ResampleOptions {
  /** Zero crossings of the sinc on each side; more taps, steeper filter. */
  halfWidth?: number;
  /** Kaiser window shape. */
  beta?: number;
}

export function resampleFloat(input: Float32Array, fromRate: number, toRate: number, opts: ResampleOptions = {}): Float32Array {
  if (!Number.isFinite(fromRate) || !Number.isFinite(toRate) || fromRate <= 0 || toRate <= 0) {
    throw new RangeError(`sample rates must be positive (from ${fromRate}, to ${toRate})`);
  }
  if (fromRate === toRate) return input.slice();
  const halfWidth = opts.halfWidth ?? 16;
  const beta = opts.beta ?? 8.6;
  const ratio = toRate / fromRate;
  // Cutoff relative to the input's Nyquist; a little under the output Nyquist when downsampling.
  const cutoff = Math.min(1, ratio) * 0.97;
  const outLength = Math.floor((input.length * toRate) / fromRate);
  const out = new Float32Array(outLength);
  // The kernel spans halfWidth zero crossings of the *filter*, i.e. halfWidth / cutoff input samples.
  const reach = halfWidth / cutoff;
  // The windowed sinc sampled finely once, then read with linear interpolation: the kernel is
  // the same for every output sample, only its phase moves.
  const table = kernelTable(reach, cutoff, beta);
  for (let n = 0; n < outLength; n++) {
    const t = n / ratio; // position in input samples
    const first = Math.max(0, Math.ceil(t - reach));
    const last = Math.min(input.length - 1, Math.floor(t + reach));
    let acc = 0;
    let norm = 0;
    for (let k = first; k <= last; k++) {
      const pos = Math.abs(k - t) * TABLE_STEPS;
      const j = Math.floor(pos);
      const frac = pos - j;
      const h = (table[j] as number) * (1 - frac) + (table[j + 1] ?? 0) * frac;
      acc += (input[k] as number) * h;
      norm += h;
    }
    // Normalising by the kernel's sum keeps DC gain at 1 near the edges, where taps are cut off.
    out[n] = norm !== 0 ? acc / norm : 0;
  }
  return out;
}

/** Resamples 16-bit PCM; returns the input unchanged when the rate already matches. */
export function resamplePcm(pcm: Pcm, toRate: number, opts?: ResampleOptions): Pcm {
  if (pcm.sampleRate === toRate) return pcm;
  return { sampleRate: toRate, samples: float32ToInt16(resampleFloat(int16ToFloat32(pcm.samples), pcm.sampleRate, toRate, opts)) };
}

const TABLE_STEPS = 512;

function kernelTable(reach: number, cutoff: number, beta: number): Float64Array {
  const size = Math.ceil(reach * TABLE_STEPS) + 2;
  const table = new Float64Array(size);
  const i0Beta = besselI0(beta);
  for (let j = 0; j < size; j++) {
    const x = j / TABLE_STEPS;
    table[j] = cutoff * sinc(cutoff * x) * kaiser(x / reach, beta, i0Beta);
  }
  return table;
}

function sinc(x: number): number {
  if (x === 0) return 1;
  const px = Math.PI * x;
  return Math.sin(px) / px;
}

function kaiser(x: number, beta: number, i0Beta: number): number {
  if (x <= -1 || x >= 1) return 0;
  return besselI0(beta * Math.sqrt(1 - x * x)) / i0Beta;
}

/** Modified Bessel function of the first kind, order 0 (power series; converges fast for beta ≤ 20). */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  const half = x / 2;
  for (let k = 1; k < 50; k++) {
    term *= (half / k) * (half / k);
    sum += term;
    if (term < sum * 1e-12) break;
  }
  return sum;
}
