/** Conversions and measures on mono PCM shared by the speech models. */

/** S16 → float in [-1, 1), the form every sherpa-onnx model takes. */
export function int16ToFloat32(samples: Int16Array): Float32Array {
  const out = new Float32Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = (samples[i] as number) / 32768;
  return out;
}

/** Float → S16 with clipping (neural TTS output can overshoot 1.0 slightly). */
export function float32ToInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const v = Math.round((samples[i] as number) * 32768);
    out[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
  }
  return out;
}

/** Root mean square relative to full scale (1.0 = a full-scale square wave). */
export function rms(samples: Int16Array | Float32Array): number {
  if (samples.length === 0) return 0;
  const scale = samples instanceof Int16Array ? 1 / 32768 : 1;
  let sum = 0;
  for (let i = 0; i < samples.length; i++) {
    const v = (samples[i] as number) * scale;
    sum += v * v;
  }
  return Math.sqrt(sum / samples.length);
}

/** Level in dB relative to full scale; -Infinity for digital silence. */
export function dbfs(samples: Int16Array | Float32Array): number {
  const r = rms(samples);
  return r === 0 ? -Infinity : 20 * Math.log10(r);
}
