/**
 * The ZIP containers of PPTX, XLSX, OpenDocument and EPUB, opened with the same decompression-bomb guard as DOCX
 * (lib/parse/docx.ts): declared sizes and ratios checked first, then every part read counted as it inflates.
 */
import JSZip from "jszip";
import { DOMParser } from "linkedom";
import { AppError } from "@/lib/types";
import type { ParseLimits } from "./limits";

/** JSZip keeps each entry's declared sizes on a private field. */
export type ZipEntry = JSZip.JSZipObject & { _data?: { compressedSize?: number; uncompressedSize?: number } };

export const zipBomb = (filename: string) => () =>
  new AppError("too_large", `"${filename}" expands to too much data when decompressed (possible decompression bomb).`);

/** The first half of the guard: declared sizes and per-entry ratios within the limits (they can lie; inflation is counted too). */
export function checkDeclaredSizes(entries: ZipEntry[], limits: ParseLimits, bomb: () => AppError): void {
  let declared = 0;
  for (const e of entries) {
    const u = e._data?.uncompressedSize ?? 0;
    const c = e._data?.compressedSize ?? 0;
    declared += u;
    if (u > 1024 * 1024 && c > 0 && u / c > limits.maxDocxRatio) throw bomb();
  }
  if (declared > limits.maxDocxUncompressedBytes) throw bomb();
}

export interface Archive {
  zip: JSZip;
  has(name: string): boolean;
  /** A part's text (UTF-8), or undefined when the archive has no such part. */
  text(name: string): Promise<string | undefined>;
  /** A part's XML as a document (linkedom: qualified tag names such as "a:t" are kept). */
  xml(name: string): Promise<Document | undefined>;
  bytes(name: string): Promise<Uint8Array | undefined>;
}

export async function openArchive(
  data: Uint8Array,
  filename: string,
  limits: ParseLimits,
  label: string,
  signal?: AbortSignal,
): Promise<Archive> {
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(data, { checkCRC32: false });
  } catch {
    throw new AppError("parse_failed", `"${filename}" could not be read: the ${label} file is corrupt.`);
  }
  const bomb = zipBomb(filename);
  checkDeclaredSizes(Object.values(zip.files) as ZipEntry[], limits, bomb);

  let inflated = 0;
  const bytes = async (name: string): Promise<Uint8Array | undefined> => {
    const entry = zip.file(name);
    if (!entry) return undefined;
    const chunks: Buffer[] = [];
    await new Promise<void>((resolve, reject) => {
      const stream = entry.nodeStream("nodebuffer");
      stream.on("data", (chunk: Buffer) => {
        inflated += chunk.length;
        chunks.push(chunk);
        if (inflated > limits.maxDocxUncompressedBytes || signal?.aborted) {
          stream.pause();
          stream.removeAllListeners("data");
          reject(signal?.aborted ? new AppError("cancelled", "Parsing was cancelled.") : bomb());
        }
      });
      stream.on("error", () => reject(new AppError("parse_failed", `"${filename}" could not be read: the ${label} file is corrupt.`)));
      stream.on("end", () => resolve());
    });
    return Buffer.concat(chunks);
  };
  const text = async (name: string) => {
    const b = await bytes(name);
    return b && new TextDecoder().decode(b);
  };
  return {
    zip,
    has: (name) => zip.file(name) !== null,
    bytes,
    text,
    async xml(name) {
      const t = await text(name);
      return t === undefined ? undefined : (new DOMParser().parseFromString(t, "text/xml") as unknown as Document);
    },
  };
}

/** Elements under `root` with a qualified tag name ("a:t"), in document order. */
export function tags(root: Document | Element, name: string): Element[] {
  return [...root.getElementsByTagName(name)];
}

/** A path relative to a part's folder, resolved ("../notesSlides/notesSlide1.xml" from "ppt/slides/…"). */
export function resolvePart(fromPart: string, target: string): string {
  if (target.startsWith("/")) return target.slice(1);
  const parts = fromPart.split("/").slice(0, -1);
  for (const seg of target.split("/")) {
    if (seg === "..") parts.pop();
    else if (seg !== ".") parts.push(seg);
  }
  return parts.join("/");
}

/** The relationships of a part (OOXML `_rels/<name>.rels`): id → target part and type. */
export async function relationships(archive: Archive, part: string): Promise<Map<string, { target: string; type: string }>> {
  const dir = part.split("/").slice(0, -1).join("/");
  const base = part.split("/").pop();
  const doc = await archive.xml(`${dir ? `${dir}/` : ""}_rels/${base}.rels`);
  const map = new Map<string, { target: string; type: string }>();
  for (const r of doc ? tags(doc, "Relationship") : []) {
    const id = r.getAttribute("Id");
    const target = r.getAttribute("Target");
    if (id && target && r.getAttribute("TargetMode") !== "External") {
      map.set(id, { target: resolvePart(part, target), type: r.getAttribute("Type") ?? "" });
    }
  }
  return map;
}

/** Checks the text built so far against the character limit. */
export function checkTextSize(text: string, filename: string, limits: ParseLimits): void {
  if (text.length > limits.maxTextChars) {
    throw new AppError("too_large", `"${filename}" holds more text than the ${limits.maxTextChars}-character limit.`);
  }
}
