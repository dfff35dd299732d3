import type sharp from "sharp";
import { AppError, type ParsedDocument } from "@/lib/types";
import { PagedText, type ParseOptions, resolveLimits } from "./limits";
import { checkOcrBudget, checkOcrPages, NeedsOcr } from "./ocr";
import { MAX_INPUT_PIXELS, OCR_MAX_SIDE } from "./ocr-engine";

const MIME: Record<string, string> = { png: "image/png", jpeg: "image/jpeg", webp: "image/webp", tiff: "image/tiff" };

/** sharp's refusal of an image over limitInputPixels (a size, not a corrupt file). */
const PIXEL_LIMIT = /pixel limit/i;

function tooLarge(filename: string, width: number, height: number): AppError {
  const size = width && height ? ` (${width} × ${height} pixels)` : "";
  return new AppError(
    "too_large",
    `"${filename}" is too large an image${size}: images up to ${MAX_INPUT_PIXELS / 1e6} million pixels are read.`,
  );
}

/**
 * PNG, JPEG, WebP, TIFF → text by OCR, decoded with sharp; each page of a multi-page TIFF is a page. Without an
 * OCR run (the plain parse task) it asks for one (NeedsOcr) before reading anything.
 */
export async function parseImage(data: Uint8Array, filename: string, opts?: ParseOptions): Promise<ParsedDocument> {
  const limits = resolveLimits(opts);
  const run = opts?.ocr;
  // sharp is native: it runs only in the OCR worker processes, which can be stopped anywhere (lib/worker/child.ts).
  if (!run) throw new NeedsOcr(1);
  const { default: sharp } = await import("sharp"); // native; loaded where images are read (the OCR worker)
  const input = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let meta: sharp.Metadata;
  try {
    // The header only (nothing decoded): its size is checked below, so a refusal can say how large it is.
    meta = await sharp(input, { limitInputPixels: false }).metadata();
  } catch {
    throw new AppError("parse_failed", `"${filename}" could not be read: the image is corrupt or not a PNG, JPEG, WebP or TIFF.`);
  }
  const pixels = (meta.width ?? 0) * (meta.height ?? 0);
  if (pixels > MAX_INPUT_PIXELS) throw tooLarge(filename, meta.width ?? 0, meta.height ?? 0);
  const mimeType = MIME[meta.format ?? ""];
  if (!mimeType)
    throw new AppError("unsupported_type", `"${filename}" is a ${meta.format ?? "unknown"} image; PNG, JPEG, WebP and TIFF are read.`);
  const total = meta.format === "tiff" ? (meta.pages ?? 1) : 1;
  checkOcrPages(run, filename, total);

  const doc = new PagedText(filename, limits.maxTextChars);
  for (let n = 1; n <= total; n++) {
    checkOcrBudget(run, filename, n, opts?.signal);
    const render = async () => {
      // One image: handed over as it came, the reader decoding it once (lib/parse/ocr-engine.ts). A page of a TIFF: that page alone.
      if (total === 1) return input;
      try {
        return await sharp(input, { page: n - 1, limitInputPixels: MAX_INPUT_PIXELS })
          .rotate() // as the camera held it (EXIF orientation)
          .resize({ width: OCR_MAX_SIDE, height: OCR_MAX_SIDE, fit: "inside", withoutEnlargement: true })
          .flatten({ background: "#ffffff" })
          .png({ compressionLevel: 1 }) // handed over within the machine: zlib's default level cost a quarter of the page's CPU time
          .toBuffer();
      } catch (err) {
        if (PIXEL_LIMIT.test(String(err))) throw tooLarge(filename, 0, 0);
        throw new AppError("parse_failed", `"${filename}" could not be read: page ${n} of the image is corrupt.`);
      }
    };
    doc.add(n, await run.read(n, total, render));
  }
  if (!doc.text.trim()) throw new AppError("parse_failed", `"${filename}": no text was found in this image.`);
  return { text: doc.text, mimeType, pages: doc.pages };
}
