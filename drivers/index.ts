import path from 'node:path';
import type { LampConfig } from '../runtime/config/schema.js';
import { ErrorCode, LampError } from '../runtime/errors.js';
import type { Camera } from './camera/camera.js';
import { SimCamera } from './camera/sim.js';
import type { Device } from './device.js';
import type { Microphone } from './microphone/microphone.js';
import { SimMicrophone } from './microphone/sim.js';
import type { Projector } from './projector/projector.js';
import { SimProjector } from './projector/sim.js';
import type { Servo } from './servo/servo.js';
import { SimServo } from './servo/sim.js';
import { SimSpeaker } from './speaker/sim.js';
import type { Speaker } from './speaker/speaker.js';

export interface Drivers {
  camera?: Camera;
  microphone?: Microphone;
  speaker?: Speaker;
  projector?: Projector;
  servo?: Servo;
}

type Kind = keyof Drivers;

/** Real bindings that this build has. Each device issue adds its own. */
const REAL: Partial<{ [K in Kind]: (config: LampConfig) => NonNullable<Drivers[K]> }> = {};

const SIM: { [K in Kind]: (config: LampConfig) => NonNullable<Drivers[K]> } = {
  camera: () => new SimCamera(),
  microphone: () => new SimMicrophone(),
  speaker: (c) => new SimSpeaker(c.drivers.speakerOutDir ? path.resolve(c.dataDir, c.drivers.speakerOutDir) : undefined),
  projector: () => new SimProjector(),
  servo: () => new SimServo(),
};

export const DEVICE_KINDS: readonly Kind[] = ['camera', 'microphone', 'speaker', 'projector', 'servo'];

/** Whether this build has the binding the config asks for; used by doctor before anything opens. */
export function bindingAvailable(kind: Kind, binding: 'simulator' | 'real' | 'none'): boolean {
  return binding !== 'real' || REAL[kind] !== undefined;
}

/** Builds the configured binding of every device ('none' leaves the device out). */
export function createDrivers(config: LampConfig): Drivers {
  const drivers: Drivers = {};
  for (const kind of DEVICE_KINDS) {
    const binding = config.drivers[kind];
    if (binding === 'none') continue;
    const factory = binding === 'real' ? REAL[kind] : SIM[kind];
    if (!factory) {
      throw new LampError(ErrorCode.DRIVER_UNAVAILABLE, `this build has no real ${kind} binding; set drivers.${kind} to "simulator" or "none"`, { kind });
    }
    (drivers as Record<Kind, Device>)[kind] = factory(config);
  }
  return drivers;
}
