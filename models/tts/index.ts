export { type TextToSpeech, type TtsLang, type SynthesizeOptions, type SplitOptions, detectLang, splitSentences } from './tts.js';
export { EspeakTts, type EspeakOptions } from './espeak.js';
export { SherpaTts, type SherpaTtsFiles, type SherpaTtsLoadOptions, buildOfflineTtsConfig, findSherpaTtsFiles } from './sherpa-tts.js';
export { speakStream, type SpeakStreamOptions } from './stream.js';
export { PhraseCache } from './cache.js';
