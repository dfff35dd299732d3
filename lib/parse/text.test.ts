import { describe, expect, it } from "vitest";
import { GBK_PHRASES, JSON_PHRASE, makeGbkText, makeJson } from "@/e2e/fixtures/make-fixtures";
import { indexedChunks } from "@/lib/chunk/indexed";
import { detectFormat, parseDocument, SUPPORTED_EXTENSIONS } from "./index";

describe("text, Markdown and JSON parsers", () => {
  it("decodes GBK-encoded Chinese text", async () => {
    const doc = await parseDocument("差旅.txt", makeGbkText());
    expect(doc.mimeType).toBe("text/plain");
    expect(doc.text).toContain(GBK_PHRASES.body);
  });

  it("decodes UTF-16 text with a BOM", async () => {
    const doc = await parseDocument("u16.txt", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("héllo 世界", "utf16le")]));
    expect(doc.text).toBe("héllo 世界");
  });

  it("chunks and tokenizes in the worker when asked, exactly as in place", async () => {
    const text = `# 差旅政策\n\n员工出差前须填写申请单。${"Travel claims are filed within thirty days of return. ".repeat(12)}`;
    const chunking = { size: 200, overlap: 20 };
    const doc = await parseDocument("policy.md", Buffer.from(text));
    expect(doc.chunks).toBeUndefined();
    const chunked = await parseDocument("policy.md", Buffer.from(text), { chunking });
    expect(chunked.chunks?.length).toBeGreaterThan(2);
    expect(chunked.chunks).toEqual(indexedChunks(chunked.text, chunking));
    expect(chunked.chunks?.[0].indexText).toContain("出差");
  });

  it("pretty-prints JSON", async () => {
    const doc = await parseDocument("station.json", makeJson());
    expect(doc.mimeType).toBe("application/json");
    expect(doc.text).toContain(`"role": "${JSON_PHRASE}"`);
    expect(doc.text.split("\n").length).toBeGreaterThan(5);
    await expect(parseDocument("bad.json", Buffer.from("{nope"))).rejects.toMatchObject({ code: "parse_failed" });
  });

  it("takes the Markdown title from the first H1", async () => {
    const doc = await parseDocument("n.md", Buffer.from("intro\r\n# Big Title\r\n\r\nbody"));
    expect(doc.title).toBe("Big Title");
    expect(doc.text).toBe("intro\n# Big Title\n\nbody");
  });
});

describe("type detection", () => {
  it("refuses unknown types, listing the supported ones", async () => {
    const err = await parseDocument("photo.exe", Buffer.from("MZ\x90\x00")).catch((e) => e);
    expect(err).toMatchObject({ code: "unsupported_type" });
    for (const ext of [".pdf", ".docx", ".html", ".csv", ".json", ".md", ".txt"]) expect(err.message).toContain(ext);
    expect(SUPPORTED_EXTENSIONS).toContain(".pdf");
  });

  it("refuses a text extension whose content is binary", () => {
    expect(() => detectFormat("notes.txt", Buffer.from("%PDF-1.7\n...."))).toThrow(/content is a PDF document/);
    expect(() => detectFormat("notes.md", Buffer.from([0x47, 0x49, 0x46, 0x38, 0, 0]))).toThrow(/binary/);
    expect(() => detectFormat("notes.md", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0]))).toThrow(/content is an image/);
  });

  it("sniffs files without an extension", () => {
    expect(detectFormat("README", Buffer.from("hello"))).toBe("text");
    expect(detectFormat("data", Buffer.from('{"a":1}'))).toBe("json");
    expect(detectFormat("doc", Buffer.from("%PDF-1.4 ..."))).toBe("pdf");
  });

  it("is case-insensitive about extensions", () => {
    expect(detectFormat("REPORT.PDF", Buffer.from("%PDF-1.4"))).toBe("pdf");
  });
});
