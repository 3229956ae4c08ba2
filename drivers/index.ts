import path from 'node:path';
import type { LampConfig } from '../runtime/config/schema.js';
import { ErrorCode, LampError } from '../runtime/errors.js';
import { type Logger, child } from '../runtime/log.js';
import type { Button } from './button/button.js';
import { EvdevButton } from './button/evdev.js';
import { SimButton } from './button/sim.js';
import type { Camera } from './camera/camera.js';
import { SimCamera } from './camera/sim.js';
import { V4l2Camera } from './camera/v4l2.js';
import type { Device } from './device.js';
import { AlsaMicrophone } from './microphone/alsa.js';
import type { Microphone } from './microphone/microphone.js';
import { SimMicrophone } from './microphone/sim.js';
import type { Projector } from './projector/projector.js';
import { SimProjector } from './projector/sim.js';
import type { Servo } from './servo/servo.js';
import { SimServo } from './servo/sim.js';
import { AlsaSpeaker } from './speaker/alsa.js';
import { SimSpeaker } from './speaker/sim.js';
import type { Speaker } from './speaker/speaker.js';

export interface Drivers {
  camera?: Camera;
  microphone?: Microphone;
  speaker?: Speaker;
  projector?: Projector;
  servo?: Servo;
  button?: Button;
}

type Kind = keyof Drivers;

/** Real bindings that this build has. Each device issue adds its own. */
const REAL: Partial<{ [K in Kind]: (config: LampConfig, log?: Logger) => NonNullable<Drivers[K]> }> = {
  camera: (c, log) => new V4l2Camera({ ...c.camera, log }),
  microphone: (c, log) => new AlsaMicrophone({ device: c.audio.captureDevice, log }),
  // The volume is read from the config at every clip: the cloud may change it while the lamp runs.
  speaker: (c) => new AlsaSpeaker({ device: c.audio.playbackDevice, volume: () => c.audio.volume }),
  button: (c, log) => new EvdevButton({ device: c.drivers.buttonDevice, keyCode: c.drivers.buttonKeyCode, log }),
};

const SIM: { [K in Kind]: (config: LampConfig) => NonNullable<Drivers[K]> } = {
  camera: () => new SimCamera(),
  microphone: () => new SimMicrophone(),
  speaker: (c) => new SimSpeaker(c.drivers.speakerOutDir ? path.resolve(c.dataDir, c.drivers.speakerOutDir) : undefined),
  projector: () => new SimProjector(),
  servo: () => new SimServo(),
  button: () => new SimButton(),
};

export const DEVICE_KINDS: readonly Kind[] = ['camera', 'microphone', 'speaker', 'projector', 'servo', 'button'];

/** Whether this build has the binding the config asks for; used by doctor before anything opens. */
export function bindingAvailable(kind: Kind, binding: 'simulator' | 'real' | 'none'): boolean {
  return binding !== 'real' || REAL[kind] !== undefined;
}

/**
 * Builds the configured binding of every device ('none' leaves the device out). With `log`, the
 * real bindings report losses and reconnects as `lamp:<kind>`.
 */
export function createDrivers(config: LampConfig, log?: Logger): Drivers {
  const drivers: Drivers = {};
  for (const kind of DEVICE_KINDS) {
    const binding = config.drivers[kind];
    if (binding === 'none') continue;
    const factory = binding === 'real' ? REAL[kind] : SIM[kind];
    if (!factory) {
      throw new LampError(ErrorCode.DRIVER_UNAVAILABLE, `this build has no real ${kind} binding; set drivers.${kind} to "simulator" or "none"`, { kind });
    }
    (drivers as Record<Kind, Device>)[kind] = (factory as (c: LampConfig, l?: Logger) => Device)(config, log && child(log, kind));
  }
  return drivers;
}
