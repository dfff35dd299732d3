/** Hostile and unusual input: every file is parsed in a worker with a hard budget (lib/parse/pool.ts). */
import { afterAll, describe, expect, it } from "vitest";
import { exceedsNesting } from "./depth";
import { parseDocument } from "./index";
import { isSafeHref } from "./markdown";
import { closeParsePool } from "./pool";
import { sniffContent } from "./sniff";
import { decodeText, detectUtf16 } from "./text";

const enc = new TextEncoder();
const nested = (n: number) => enc.encode(`<!doctype html><html><body>${"<div>".repeat(n)}x${"</div>".repeat(n)}</body></html>`);

afterAll(() => closeParsePool());

describe("deeply nested HTML", () => {
  it.each([1_000, 10_000, 100_000])("refuses %i nested <div>s with a readable error", async (n) => {
    await expect(parseDocument(`nested-${n}.html`, nested(n))).rejects.toMatchObject({
      code: "parse_failed",
      message: expect.stringContaining(`"nested-${n}.html" nests HTML elements more than 256 levels deep`),
    });
  });

  it("does not count void, implicitly closed or raw-text elements, and reads an ordinary page", async () => {
    const page = `<html><body><article><h1>Leave</h1>${"<p>Para<br>graph <img src=x>".repeat(400)}<script>${"<div>".repeat(1000)}</script></article></body></html>`;
    expect(exceedsNesting(page, 256)).toBe(false);
    expect(exceedsNesting(`${"<section>".repeat(257)}`, 256)).toBe(true);
    const doc = await parseDocument("page.html", enc.encode(page));
    expect(doc.text).toContain("Para");
  });
});

describe("link targets in stored text", () => {
  it("drops javascript: (any case, with hidden whitespace) and data: targets but keeps the link text", async () => {
    const html = `<html><body><article><h1>Links</h1><p>${"Enough text for Readability to keep this article. ".repeat(10)}
      <a href="JaVaScRiPt:alert(1)">one</a> <a href=" java\tscript:alert(2)">two</a> <a href="data:text/html,x">three</a>
      <a href="https://example.com/ok">four</a> <a href="/relative">five</a></p></article></body></html>`;
    const { text } = await parseDocument("links.html", enc.encode(html));
    expect(text.toLowerCase()).not.toMatch(/javascript:|java\s*script|data:text/);
    expect(text).toMatch(/one.*two.*three/s);
    expect(text).toContain("[four](https://example.com/ok)");
    expect(isSafeHref("mailto:a@b.c")).toBe(true);
    expect(isSafeHref("vbscript:x")).toBe(false);
  });
});

describe("UTF-16 without a BOM", () => {
  const text = "Annual leave: 25 days. 年假二十五天。\n";
  it("is detected as text (not binary) and decoded, little- and big-endian", async () => {
    const le = new Uint8Array(Buffer.from(text.repeat(20), "utf16le"));
    const be = new Uint8Array(le.length);
    for (let i = 0; i < le.length; i += 2) [be[i], be[i + 1]] = [le[i + 1], le[i]];
    expect(detectUtf16(le)).toBe("utf-16le");
    expect(detectUtf16(be)).toBe("utf-16be");
    expect(sniffContent(le)).toBe("text");
    expect(decodeText(be)).toBe(text.repeat(20));
    const doc = await parseDocument("notes.txt", le);
    expect(doc.text).toContain("年假二十五天");
  });
  it("leaves real binary data alone", () => {
    expect(detectUtf16(new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 0, 1, 2, 3, 4]))).toBeNull();
    expect(detectUtf16(enc.encode("plain ascii text"))).toBeNull();
  });
});
