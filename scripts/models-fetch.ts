import { parseArgs } from 'node:util';
import { fetchModel } from '../models/fetch.js';
import { checkModel, loadManifest, modelsDirOf } from '../models/manifest.js';
import { loadConfig } from '../runtime/config/load.js';
import { isLampError } from '../runtime/errors.js';

/**
 * npm run models:fetch [-- NAME... | --all] [--dir DIR] [--from ARCHIVE] [--record-hashes]
 * Downloads the models the lamp can use (on a machine with internet), verifies every file
 * against models/manifest.json and installs each atomically into the model directory. Without
 * names it fetches the models that are missing or corrupt.
 */
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { all: { type: 'boolean', default: false }, dir: { type: 'string' }, from: { type: 'string' }, config: { type: 'string' }, 'record-hashes': { type: 'boolean', default: false } },
});
const manifest = loadManifest();
const dir = values.dir ?? modelsDirOf(loadConfig({ file: values.config }));
const unknown = positionals.filter((n) => !manifest.some((m) => m.name === n));
if (unknown.length > 0) {
  console.error(`unknown model(s): ${unknown.join(', ')}; the manifest has ${manifest.map((m) => m.name).join(', ')}`);
  process.exit(2);
}
if (values.from && positionals.length !== 1) {
  console.error('--from installs one model: name it');
  process.exit(2);
}
const wanted = manifest.filter((m) => (positionals.length > 0 ? positionals.includes(m.name) : values.all || !['present', 'unverified'].includes(checkModel(dir, m).status)));
if (wanted.length === 0) console.log(`every model in the manifest is present and verified (${dir})`);
let failed = 0;
for (const model of wanted) {
  try {
    await fetchModel(model, { modelsDir: dir, source: values.from, recordHashes: values['record-hashes'], log: (l) => console.log(l) });
  } catch (err) {
    failed++;
    console.error(isLampError(err) ? err.message : `${model.name}: ${(err as Error).message}`);
  }
}
process.exit(failed === 0 ? 0 : 1);
