export { OcrEngine, type OcrChar, type OcrLine, type OcrLoadOptions, type OcrTimings, type Recognized } from './engine.js';
