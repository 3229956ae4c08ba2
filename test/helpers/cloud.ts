import { CloudSimulator } from '../../sync/cloud-sim.js';
import { type Broker, startBroker } from './broker.js';

/** A real mosquitto and the reference cloud on it, for a test file's whole run. */
export async function startBrokerAndCloud(): Promise<{ broker: Broker; sim: CloudSimulator; stop: () => Promise<void> }> {
  const broker = await startBroker();
  const sim = new CloudSimulator(broker.url);
  await sim.start();
  return { broker, sim, stop: async () => (await sim.stop(), await broker.stop()) };
}
