export { KeywordSpotter, type KeywordSpotterOptions, KWS_SAMPLE_RATE, buildKeywordSpotterConfig } from './kws.js';
export { keywordsToTokens, keywordLine, syllableTokens, parseTokens } from './tokens.js';
