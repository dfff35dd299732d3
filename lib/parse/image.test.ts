/**
 * How an image's pages are handed to the OCR reader (lib/parse/image.ts): a one-page image as it was sent (the reader
 * decodes it once), each page of a multi-page TIFF as an image of that page alone.
 */
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { makeMultiPageTiff, renderPage } from "@/e2e/fixtures/make-scans";
import { parseImage } from "./image";
import type { OcrRun } from "./ocr";

/** Parses the image with an OCR run that keeps each page's image and reads it as "page N". */
async function handedOver(data: Uint8Array, filename: string): Promise<Buffer[]> {
  const images: Buffer[] = [];
  const run: OcrRun = {
    cpuDeadline: Number.POSITIVE_INFINITY,
    maxPages: 10,
    read: async (page, _total, image) => {
      images.push(await image());
      return `page ${page}`;
    },
  };
  await parseImage(data, filename, { ocr: run });
  return images;
}

describe("image pages handed to OCR", () => {
  it("hands over a one-page image as sent, and each page of a multi-page TIFF as that page", async () => {
    const png = await renderPage(["A short page."]);
    const jpeg = await sharp(png).jpeg({ quality: 80 }).toBuffer();
    expect(await handedOver(jpeg, "page.jpg")).toEqual([jpeg]);

    const tiff = await makeMultiPageTiff([png, await renderPage(["Another page.", "Two lines long."])]);
    const pages = await handedOver(tiff, "pages.tiff");
    expect(pages).toHaveLength(2);
    const sizes = await Promise.all(pages.map(async (p) => (await sharp(p).metadata()).height));
    expect(sizes).toEqual([(await sharp(png).metadata()).height, expect.any(Number)]);
    expect(sizes[1]).toBeGreaterThan(sizes[0] ?? 0);
  });
});
