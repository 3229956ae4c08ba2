export { type StreamingRecognizer, type AsrStream, ASR_SAMPLE_RATE } from './asr.js';
export {
  SherpaRecognizer,
  type SherpaRecognizerOptions,
  type TransducerFiles,
  type EndpointRules,
  DEFAULT_ENDPOINT_RULES,
  buildOnlineRecognizerConfig,
  findTransducerFiles,
} from './sherpa-asr.js';
export { SimAsrEngine, type SimAsrOptions } from './sim-asr.js';
