/**
 * npm run cloud:sim -- --url mqtt://127.0.0.1:1883 [--username U --password P]
 * The reference cloud: stores every lamp's records, acknowledges them, answers cloud calls.
 */
import { parseArgs } from 'node:util';
import { CloudSimulator } from '../sync/cloud-sim.js';

const { values } = parseArgs({ options: { url: { type: 'string' }, username: { type: 'string' }, password: { type: 'string' } } });
if (!values.url) {
  console.error('usage: npm run cloud:sim -- --url mqtt://HOST:PORT [--username U --password P]');
  process.exit(64);
}
const sim = new CloudSimulator(values.url, { username: values.username, password: values.password });
await sim.start();
console.log(`cloud simulator connected to ${values.url}; Ctrl-C to stop`);
let last = '';
const timer = setInterval(() => {
  const s = JSON.stringify(sim.summary());
  if (s !== last) console.log(new Date().toISOString(), s);
  last = s;
}, 1000);
const stop = (): void => {
  clearInterval(timer);
  void sim.stop().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
