import { readFileSync, statSync } from 'node:fs';
import type { LampConfig } from '../runtime/config/schema.js';

export interface DeviceProbe {
  ok: boolean;
  detail: string;
}

function node(file: string, what: string): DeviceProbe {
  try {
    const st = statSync(file);
    const type = st.isCharacterDevice() ? 'character device' : st.isFIFO() ? 'pipe' : st.isFile() ? 'file' : 'not a device';
    return { ok: type !== 'not a device', detail: `${what} ${file} (${type})` };
  } catch (err) {
    return { ok: false, detail: `${what} ${file} ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : `cannot be read: ${(err as Error).message}`}` };
  }
}

function soundCards(procCards: string): string[] {
  try {
    return readFileSync(procCards, 'utf8')
      .split('\n')
      .map((l) => /^\s*\d+\s+\[(\S+)\s*\]/.exec(l)?.[1])
      .filter((c): c is string => c !== undefined);
  } catch {
    return [];
  }
}

/**
 * What a technician needs to know about the hardware behind a real binding, without opening it
 * (the running lamp may hold it): whether the configured device node exists, and for ALSA which
 * sound cards the kernel has. For `lamp doctor`; never throws.
 */
export function probeRealDevice(kind: 'camera' | 'microphone' | 'speaker' | 'button', config: LampConfig, procCards = '/proc/asound/cards'): DeviceProbe {
  switch (kind) {
    case 'camera':
      return node(config.camera.device, 'camera');
    case 'button':
      return node(config.drivers.buttonDevice, `push-to-talk key ${config.drivers.buttonKeyCode} on`);
    case 'microphone':
    case 'speaker': {
      const pcm = kind === 'microphone' ? config.audio.captureDevice : config.audio.playbackDevice;
      const cards = soundCards(procCards);
      return cards.length
        ? { ok: true, detail: `ALSA ${pcm}; sound cards: ${cards.join(', ')}` }
        : { ok: false, detail: `ALSA ${pcm}; the kernel has no sound card (${procCards} is missing or empty)` };
    }
  }
}
