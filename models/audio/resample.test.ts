import { describe, expect, it } from 'vitest';
import { float32ToInt16, int16ToFloat32, rms, dbfs } from './pcm.js';
import { resampleFloat, resamplePcm } from './resample.js';

function tone(freq: number, rate: number, seconds: number, amp = 0.5): Float32Array {
  const out = new Float32Array(Math.round(rate * seconds));
  for (let i = 0; i < out.length; i++) out[i] = amp * Math.sin((2 * Math.PI * freq * i) / rate);
  return out;
}

/** Level of one frequency in a signal (single-bin DFT), away from the edges. */
function level(x: Float32Array, freq: number, rate: number): number {
  let re = 0;
  let im = 0;
  const from = Math.floor(x.length * 0.1);
  const to = Math.floor(x.length * 0.9);
  for (let i = from; i < to; i++) {
    re += (x[i] as number) * Math.cos((2 * Math.PI * freq * i) / rate);
    im += (x[i] as number) * Math.sin((2 * Math.PI * freq * i) / rate);
  }
  return (2 * Math.hypot(re, im)) / (to - from);
}

describe('resample', () => {
  it('keeps a tone in the pass band at its level and frequency (22050 → 16000 Hz)', () => {
    const out = resampleFloat(tone(1000, 22050, 1), 22050, 16000);
    expect(out.length).toBe(16000);
    expect(level(out, 1000, 16000)).toBeCloseTo(0.5, 2);
    expect(rms(out.subarray(1000, 15000))).toBeCloseTo(0.5 / Math.SQRT2, 2);
  });

  it('removes what the lower rate cannot carry instead of folding it back', () => {
    // 10 kHz is above 16 kHz's Nyquist; without filtering it would alias to 6 kHz.
    const out = resampleFloat(tone(10_000, 22050, 1), 22050, 16000);
    expect(20 * Math.log10(level(out, 6000, 16000) / 0.5)).toBeLessThan(-50);
  });

  it('goes up as well, and leaves 16-bit PCM at its rate alone', () => {
    const up = resampleFloat(tone(440, 16000, 0.5), 16000, 22050);
    expect(up.length).toBe(11025);
    expect(level(up, 440, 22050)).toBeCloseTo(0.5, 2);
    const pcm = { sampleRate: 16000, samples: float32ToInt16(tone(440, 16000, 0.1)) };
    expect(resamplePcm(pcm, 16000)).toBe(pcm);
    const down = resamplePcm({ sampleRate: 22050, samples: float32ToInt16(tone(440, 22050, 0.1)) }, 16000);
    expect(down.sampleRate).toBe(16000);
    expect(down.samples.length).toBe(1600);
  });

  it('converts and measures PCM', () => {
    expect(Array.from(float32ToInt16(new Float32Array([0, 1.5, -1.5, 0.5])))).toEqual([0, 32767, -32768, 16384]);
    expect(int16ToFloat32(new Int16Array([-32768]))[0]).toBe(-1);
    expect(dbfs(new Int16Array(10))).toBe(-Infinity);
    expect(() => resampleFloat(new Float32Array(4), 0, 16000)).toThrow(RangeError);
  });
});
