export { VoiceActivityDetector, VAD_PRESETS, VAD_SAMPLE_RATE, VAD_WINDOW, resolvePreset, type VadEvent, type VadOptions, type VadPresetName, type VadLoadOptions } from './vad.js';
