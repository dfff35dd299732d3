/**
 * What a refused file says: an image over the pixel limit is too large (not corrupt), an e-mail with too many
 * attachments says so. Through the real parse and OCR worker pools.
 */
import { crc32, deflateSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { parseDocument } from "./index";
import { closeParsePool } from "./pool";

afterAll(closeParsePool);

/** A PNG whose header says width × height; its pixel data is one short row (decoding would stop there). */
function pngOfSize(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(Buffer.alloc(width + 1, 255))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function emailWith(attachments: number): Buffer {
  const parts = Array.from(
    { length: attachments },
    (_, i) =>
      `--b\r\nContent-Type: text/plain; name="n${i}.txt"\r\nContent-Disposition: attachment; filename="n${i}.txt"\r\n\r\nNote ${i} about the stoat.\r\n`,
  );
  return Buffer.from(
    "From: Sender <s@example.com>\r\nTo: r@example.com\r\nSubject: Many notes\r\nMIME-Version: 1.0\r\n" +
      'Content-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nSee the notes.\r\n' +
      `${parts.join("")}--b--\r\n`,
  );
}

describe("clear messages", { timeout: 300_000 }, () => {
  it("an image over the pixel limit is too large, not corrupt", async () => {
    await expect(parseDocument("poster.png", pngOfSize(20_000, 20_000))).rejects.toMatchObject({
      code: "too_large",
      message: expect.stringMatching(/"poster\.png" is too large an image \(20000 × 20000 pixels\): images up to 100 million pixels/),
    });
  });

  it("an e-mail with too many attachments says so; one within the limit is read", async () => {
    await expect(parseDocument("many.eml", emailWith(101))).rejects.toMatchObject({
      code: "too_large",
      message: expect.stringMatching(/"many\.eml" has 101 attachments: too many \(an e-mail is read with at most 100\)/),
    });
    const doc = await parseDocument("few.eml", emailWith(3));
    expect(doc.text).toContain("# Attachment: n2.txt");
  });
});
