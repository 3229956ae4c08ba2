import type * as ort from 'onnxruntime-node';
import { pino } from 'pino';
import { ErrorCode, isLampError, LampError } from '../../runtime/errors.js';
import { child, type Logger } from '../../runtime/log.js';
import { cv, type Mat } from '../cv.js';
import { upsideDown } from './classify.js';
import { cropQuad, type LineCrop } from './crop.js';
import { DB_DEFAULTS, type DbOptions } from './db-postprocess.js';
import { detectBoxes } from './detect.js';
import { boundsOf, type Pt } from './geometry.js';
import { readingAxis, readingOrder, spanInImage } from './layout.js';
import { loadManifest, type ModelEntry } from '../manifest.js';
import { mergeRowNeighbours } from './merge.js';
import { loadDictionary, OCR_MODELS, onnxFile, openSession, verifiedModelFiles } from './model-files.js';
import { recognizeCrops, REC_DEFAULTS } from './recognize.js';
import { asBgr } from './tensor.js';

export interface OcrChar {
  text: string;
  confidence: number;
  /** horizontal span in image pixels along the line */
  x0: number;
  x1: number;
  /** the recogniser's second choice for this character */
  runnerUp?: string;
  /** how surely the recogniser saw a point it did not read just before this character (see DecodedChar) */
  pointBefore?: number;
}
export interface OcrLine {
  text: string;
  /** mean of per-char max probabilities (spaces not counted) */
  confidence: number;
  /** lowest of the per-char max probabilities, spaces not counted: one doubtful digit makes a doubtful answer */
  minCharConfidence: number;
  box: { x: number; y: number; w: number; h: number };
  quad: [number, number][];
  chars: OcrChar[];
  rotated180: boolean;
  /** mean text probability inside the detected box */
  detScore: number;
}
export interface OcrTimings { detectMs: number; classifyMs: number; recognizeMs: number }
export interface Recognized { text: string; confidence: number; minCharConfidence: number; chars: OcrChar[] }

export interface OcrLoadOptions {
  modelsDir: string;
  /**
   * Turn upside-down lines with the angle classifier. true: the classifier must load; false: not
   * used; unset: used when its model is present and intact, otherwise the engine reads without it.
   */
  angleClassifier?: boolean;
  /** Threads per inference (default 2, the board's cores). */
  threads?: number;
  log?: Logger;
  /**
   * Longest side the detector sees (default 832, rounded to a multiple of 32). On 1280×960 homework
   * pages this read more problems with their answers than 960 (37 of 41 against 31 on the rendered
   * fixture, about even on photographed pages): at 960 the detector finds a lone handwritten digit
   * a little apart from its "=" only as a sliver, or not at all. Smaller is also faster.
   */
  detLimit?: number;
  /** Crops per recognition batch (default 8). */
  recBatchSize?: number;
  /** Lines whose mean character confidence is below this are dropped from read() (default 0.3). */
  minLineConfidence?: number;
  db?: Partial<DbOptions>;
  /** The model manifest to verify against (default models/manifest.json). */
  manifest?: ModelEntry[];
  /**
   * Join boxes on one row whose gap is under this many line heights (default 1; 0 keeps the
   * detector's boxes): a problem and the answer written after it read as one line.
   */
  rowMergeGap?: number;
}

interface Sessions { det: ort.InferenceSession; rec: ort.InferenceSession; cls: ort.InferenceSession | undefined }

/** PaddleOCR PP-OCRv4 detection, recognition and angle classification on onnxruntime. */
export class OcrEngine {
  private released = false;

  private constructor(
    private readonly sessions: Sessions,
    private readonly dict: readonly string[],
    private readonly opts: { detLimit: number; recBatchSize: number; minLineConfidence: number; rowMergeGap: number; db: DbOptions },
    private readonly log: Logger,
  ) {}

  /** Verifies every model file (size and sha256) before loading any, then opens the sessions. */
  static async load(opts: OcrLoadOptions): Promise<OcrEngine> {
    const log = child(opts.log ?? pino({ level: 'silent' }), 'ocr');
    const threads = opts.threads ?? 2;
    const manifest = opts.manifest ?? loadManifest();
    const detFiles = verifiedModelFiles(opts.modelsDir, OCR_MODELS.det, manifest);
    const recFiles = verifiedModelFiles(opts.modelsDir, OCR_MODELS.rec, manifest);
    let clsFiles: Map<string, string> | undefined;
    if (opts.angleClassifier !== false) {
      try {
        clsFiles = verifiedModelFiles(opts.modelsDir, OCR_MODELS.cls, manifest);
      } catch (err) {
        if (opts.angleClassifier === true || !isLampError(err)) throw err;
        log.warn({ err: err.toJSON() }, 'angle classifier unavailable: upside-down lines will not be turned');
      }
    }
    const started = Date.now();
    const det = await openSession(onnxFile(detFiles), threads);
    const rec = await openSession(onnxFile(recFiles), threads);
    const cls = clsFiles ? await openSession(onnxFile(clsFiles), threads) : undefined;
    const classes = outputClasses(rec);
    const dictFile = recFiles.get('ppocr_keys_v1.txt');
    if (!dictFile) throw new LampError(ErrorCode.MODEL_MANIFEST_INVALID, `model ${OCR_MODELS.rec} lists no ppocr_keys_v1.txt`, { model: OCR_MODELS.rec });
    const dict = loadDictionary(dictFile, classes);
    log.info({ ms: Date.now() - started, classes, angleClassifier: cls !== undefined, threads }, 'OCR models loaded');
    return new OcrEngine(
      { det, rec, cls },
      dict,
      {
        detLimit: opts.detLimit ?? 832,
        recBatchSize: opts.recBatchSize ?? REC_DEFAULTS.batchSize,
        minLineConfidence: opts.minLineConfidence ?? 0.3,
        rowMergeGap: opts.rowMergeGap ?? 1,
        db: { ...DB_DEFAULTS, ...opts.db },
      },
      log,
    );
  }

  get hasAngleClassifier(): boolean {
    return this.sessions.cls !== undefined;
  }

  /** Text boxes (corners clockwise from top-left, image pixels) in reading order. */
  async detect(image: Mat): Promise<{ quad: [number, number][]; score: number }[]> {
    const boxes = await this.findBoxes(this.checkImage(image, 'image'));
    return readingOrder(boxes.map((b) => ({ quad: b.quad, score: b.score, box: boundsOf(b.quad) }))).map(({ quad, score }) => ({ quad, score }));
  }

  /** Reads line crops (each one line of text, left to right); chars' x in crop pixels. */
  async recognize(crops: Mat[]): Promise<Recognized[]> {
    const bgr = crops.map((c, i) => this.checkImage(c, `crop ${i}`));
    if (bgr.length === 0) return [];
    return recognizeCrops(this.sessions.rec, this.dict, bgr, { ...REC_DEFAULTS, batchSize: this.opts.recBatchSize });
  }

  /** A page: detect → straighten each box → turn the lines if the page is upside down → recognise, in reading order. */
  async read(image: Mat, timings?: OcrTimings): Promise<OcrLine[]> {
    const bgr = this.checkImage(image, 'image');
    let t = performance.now();
    const boxes = await this.findBoxes(bgr);
    const detectMs = performance.now() - t;

    const found: { quad: Pt[]; score: number; crop: LineCrop }[] = [];
    for (const b of boxes) {
      const crop = cropQuad(bgr, b.quad);
      if (crop) found.push({ ...b, crop });
    }

    t = performance.now();
    // All lines of one photo face the same way: the classifier's votes decide for the page, and
    // a lone line it thinks upside down ("99-(9)=90" read back as "06=(6)-66") is left as it is.
    const votes = this.sessions.cls && found.length ? await upsideDown(this.sessions.cls, found.map((f) => f.crop.img)) : [];
    const pageFlipped = votes.filter(Boolean).length > votes.length / 2;
    const flipped = found.map(() => pageFlipped);
    const crops = found.map((f, i) => (flipped[i] ? f.crop.img.rotate(cv.ROTATE_180) : f.crop.img));
    const classifyMs = performance.now() - t;

    t = performance.now();
    const texts = crops.length ? await recognizeCrops(this.sessions.rec, this.dict, crops, { ...REC_DEFAULTS, batchSize: this.opts.recBatchSize }) : [];
    const recognizeMs = performance.now() - t;

    const lines: OcrLine[] = [];
    found.forEach((f, i) => {
      const r = texts[i] as Recognized;
      if (!r.text || r.confidence < this.opts.minLineConfidence) return;
      const rotated180 = flipped[i] === true;
      const axis = readingAxis(f.quad, f.crop.rotated90, rotated180);
      const cropW = (crops[i] as Mat).cols;
      const b = boundsOf(f.quad);
      lines.push({
        text: r.text,
        confidence: r.confidence,
        minCharConfidence: r.minCharConfidence,
        box: { x: Math.round(b.x), y: Math.round(b.y), w: Math.round(b.w), h: Math.round(b.h) },
        quad: f.quad.map(([x, y]): [number, number] => [x, y]),
        chars: r.chars.map((c) => ({ text: c.text, confidence: c.confidence, ...spanInImage(axis, cropW, c.x0, c.x1), ...(c.runnerUp === undefined ? {} : { runnerUp: c.runnerUp }), ...(c.pointBefore === undefined ? {} : { pointBefore: c.pointBefore }) })),
        rotated180,
        detScore: f.score,
      });
    });
    if (timings) Object.assign(timings, { detectMs, classifyMs, recognizeMs });
    this.log.debug({ boxes: boxes.length, lines: lines.length, detectMs: Math.round(detectMs), classifyMs: Math.round(classifyMs), recognizeMs: Math.round(recognizeMs) }, 'page read');
    return readingOrder(lines);
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await Promise.all([this.sessions.det.release(), this.sessions.rec.release(), this.sessions.cls?.release()]);
  }

  private async findBoxes(bgr: Mat): Promise<{ quad: Pt[]; score: number }[]> {
    const boxes = await detectBoxes(this.sessions.det, bgr, this.opts.detLimit, this.opts.db);
    return mergeRowNeighbours(boxes, this.opts.rowMergeGap);
  }

  private checkImage(image: Mat, what: string): Mat {
    if (this.released) throw new LampError(ErrorCode.MODEL_LOAD_FAILED, 'OCR engine used after release', {});
    const bgr = image instanceof cv.Mat ? asBgr(image) : undefined;
    if (!bgr) {
      const shape = image instanceof cv.Mat ? { rows: image.rows, cols: image.cols, type: image.type } : { type: typeof image };
      throw new LampError(ErrorCode.INPUT_REJECTED, `OCR ${what} is not an 8-bit image (empty, or an unsupported pixel type)`, shape);
    }
    return bgr;
  }
}

/** Number of classes of the recogniser's output ([batch, steps, classes]). */
function outputClasses(rec: ort.InferenceSession): number {
  const meta = rec.outputMetadata[0];
  const dim = meta && meta.isTensor ? meta.shape[2] : undefined;
  if (typeof dim !== 'number') throw new LampError(ErrorCode.MODEL_LOAD_FAILED, 'OCR recognition model has no fixed class count in its output', { shape: meta && meta.isTensor ? meta.shape : undefined });
  return dim;
}
