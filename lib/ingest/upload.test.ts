import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CSV_QUESTION, DOCX_PHRASES, GBK_PHRASES, makeMarkdown, PDF_PHRASES, uploadBatch } from "@/e2e/fixtures/make-fixtures";
import { createOfflineEmbedder } from "@/lib/embed/offline";
import { sanitizeFileName } from "@/lib/kb/fields";
import { openStore, type Store } from "@/lib/store";
import { reindexDocument } from "./reindex";
import { ingestUploads, receiveUpload, type UploadEvent } from "./upload";

describe("sanitizeFileName", () => {
  it("keeps only the last path segment and any Unicode", () => {
    expect(sanitizeFileName("../../etc/passwd.txt")).toBe("passwd.txt");
    expect(sanitizeFileName("..\\..\\windows\\win.ini")).toBe("win.ini");
    expect(sanitizeFileName("报告 2024.md")).toBe("报告 2024.md");
    expect(sanitizeFileName("ファイル\u0000名\u202e.txt")).toBe("ファイル名.txt");
    expect(sanitizeFileName("..")).toBe("untitled");
    expect(sanitizeFileName(".hidden.md")).toBe("hidden.md");
  });

  it("shortens very long names but keeps the extension", () => {
    const long = sanitizeFileName(`${"長".repeat(500)}.pdf`);
    expect([...long].length).toBeLessThanOrEqual(200);
    expect(long.endsWith(".pdf")).toBe(true);
  });
});

/** A multipart body as a web stream, in small pieces and without a length (like Transfer-Encoding: chunked). */
function multipart(parts: { name: string; filename?: string; data: string | Uint8Array }[]): Request {
  const boundary = "----kbtest9";
  const enc = new TextEncoder();
  const pieces: Uint8Array[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ""}`;
    pieces.push(
      enc.encode(
        `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.filename ? "Content-Type: application/octet-stream\r\n" : ""}\r\n`,
      ),
    );
    pieces.push(typeof p.data === "string" ? enc.encode(p.data) : p.data);
    pieces.push(enc.encode("\r\n"));
  }
  pieces.push(enc.encode(`--${boundary}--\r\n`));
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = pieces.shift();
      if (!next) return controller.close();
      for (let i = 0; i < next.byteLength; i += 4096) controller.enqueue(next.subarray(i, i + 4096));
    },
  });
  return new Request("http://127.0.0.1/api/documents", {
    method: "POST",
    headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
    body,
    duplex: "half",
  } as RequestInit);
}

describe("receiveUpload (streamed, limits counted on bytes received)", () => {
  const limits = { maxFileBytes: 1000, maxFiles: 3, maxTotalBytes: 10_000 };
  it("keeps an over-limit file only as its error; the others and the fields come through", async () => {
    const { files, fields } = await receiveUpload(
      multipart([
        { name: "kb", data: "hr" },
        { name: "files", filename: "a.md", data: "# A\n\nalpha" },
        { name: "files", filename: "big.md", data: "x".repeat(5000) },
        { name: "files", filename: "b.md", data: "# B\n\nbeta" },
      ]),
      limits,
    );
    expect(fields.kb).toEqual(["hr"]);
    expect(files.map((f) => [f.name, f.data.byteLength, f.error?.code])).toEqual([
      ["a.md", 10, undefined],
      ["big.md", 0, "too_large"],
      ["b.md", 9, undefined],
    ]);
    expect(files[1].error?.message).toMatch(/"big\.md" is larger than the 0 MB limit per file/);
  });

  it("stops reading once the request passes the total limit (413), length header or not", async () => {
    const many = Array.from({ length: 3 }, (_, i) => ({ name: "files", filename: `f${i}.md`, data: "y".repeat(4000) }));
    await expect(receiveUpload(multipart(many), limits)).rejects.toMatchObject({ status: 413, code: "too_large" });
  });

  it("reports an upload cut off mid-file as interrupted, and nothing escapes as an uncaught exception", async () => {
    const uncaught: unknown[] = [];
    const record = (err: unknown) => uncaught.push(err);
    process.on("uncaughtException", record);
    try {
      const whole = await new Response(multipart([{ name: "files", filename: "cut.md", data: "w".repeat(6000) }]).body).arrayBuffer();
      let sent = false;
      const cut = new Request("http://127.0.0.1/api/documents", {
        method: "POST",
        headers: { "content-type": "multipart/form-data; boundary=----kbtest9" },
        body: new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent) return controller.error(new Error("aborted"));
            sent = true;
            controller.enqueue(new Uint8Array(whole.slice(0, 3000)));
          },
        }),
        duplex: "half",
      } as RequestInit);
      await expect(receiveUpload(cut, limits)).rejects.toMatchObject({ status: 400, message: "The upload was interrupted." });
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      process.off("uncaughtException", record);
    }
    expect(uncaught).toEqual([]);
  });

  it("refuses too many files, non-multipart bodies and uploads without files (400)", async () => {
    const four = Array.from({ length: 4 }, (_, i) => ({ name: "files", filename: `f${i}.md`, data: "z" }));
    await expect(receiveUpload(multipart(four), limits)).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("at most 3"),
    });
    await expect(receiveUpload(multipart([{ name: "kb", data: "hr" }]), limits)).rejects.toMatchObject({ status: 400 });
    const json = new Request("http://x/", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    await expect(receiveUpload(json, limits)).rejects.toMatchObject({ status: 400 });
  });
});

describe("ingestUploads", () => {
  let dir: string;
  let store: Store;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "upload-test-"));
    store = await openStore({ uri: dir, embedder: createOfflineEmbedder(64) });
  });
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("ingests good files and fails bad ones alone, with their messages", async () => {
    const events: UploadEvent[] = [];
    const results = await ingestUploads(store, await uploadBatch(), { kb: "uploads", tags: ["t1"] }, { onEvent: (e) => events.push(e) });
    expect(results.map((r) => r.status)).toEqual(["added", "failed", "failed", "added", "added", "added", "added", "added"]);
    expect(results[1].error?.message).toMatch(/corrupt/);
    expect(results[2].error?.message).toContain("this PDF has no text layer and no scanned page");

    const stages = events.filter((e) => e.type === "progress" && e.index === 0).map((e) => (e as { stage: string }).stage);
    expect([...new Set(stages)]).toEqual(["received", "parsing", "chunking", "embedding", "indexing", "done"]);
    expect(events.at(-1)).toEqual({ type: "summary", results });
    expect(events.find((e) => e.type === "progress" && e.index === 1 && e.stage === "failed")).toMatchObject({
      name: "broken.pdf",
      code: "parse_failed",
    });

    const docs = await store.listDocuments({ kb: "uploads" });
    expect(docs.map((d) => d.source).sort()).toEqual(
      ["cities.csv", "handbook.docx", "heron.html", "station.json", "turbine-report.pdf", "差旅制度.txt"].sort(),
    );
    expect(docs.every((d) => d.origin === "upload" && d.tags[0] === "t1")).toBe(true);

    const pdfChunks = await store.getChunks(results[0].documentId!);
    for (const [phrase, page] of Object.entries(PDF_PHRASES)) {
      expect(pdfChunks.find((c) => c.text.includes(phrase))?.page, phrase).toBe(page);
    }
    const docxChunks = await store.getChunks(results[3].documentId!);
    expect(docxChunks.find((c) => c.text.includes(DOCX_PHRASES.body))?.heading).toContain(DOCX_PHRASES.subheading);
    const csvChunks = await store.getChunks(results[5].documentId!);
    expect(csvChunks.some((c) => c.text.includes(`mascot: ${CSV_QUESTION.phrase}`))).toBe(true);
    const gbk = await store.getChunks(results[6].documentId!);
    expect(gbk.some((c) => c.text.includes(GBK_PHRASES.body))).toBe(true);
  });

  it("does not duplicate identical content and replaces a changed file of the same name", async () => {
    const first = await ingestUploads(store, [{ name: "notes.md", data: makeMarkdown("Alpha version of the notes") }], { kb: "dup" });
    const again = await ingestUploads(store, [{ name: "copy of notes.md", data: makeMarkdown("Alpha version of the notes") }], {
      kb: "dup",
    });
    expect(again[0].status).toBe("unchanged");
    expect(again[0].documentId).toBe(first[0].documentId);
    const changed = await ingestUploads(store, [{ name: "notes.md", data: makeMarkdown("Beta version of the notes") }], { kb: "dup" });
    expect(changed[0]).toMatchObject({ status: "updated", documentId: first[0].documentId });
    const docs = await store.listDocuments({ kb: "dup" });
    expect(docs).toHaveLength(1);
    const text = (await store.getChunks(docs[0].id)).map((c) => c.text).join("\n");
    expect(text).toContain("Beta version");
    expect(text).not.toContain("Alpha version");
  });

  it("stores traversal-looking and Unicode names as plain labels", async () => {
    const results = await ingestUploads(
      store,
      [
        { name: "../../etc/passwd.txt", data: Buffer.from("root entry lookalike") },
        { name: "报告 2024.md", data: makeMarkdown("年度报告内容") },
      ],
      { kb: "names" },
    );
    expect(results.map((r) => [r.status, r.name])).toEqual([
      ["added", "passwd.txt"],
      ["added", "报告 2024.md"],
    ]);
  });

  it("reports a cancelled upload as cancelled and stores nothing", async () => {
    const ac = new AbortController();
    ac.abort();
    const results = await ingestUploads(
      store,
      [{ name: "late.md", data: makeMarkdown("never stored") }],
      { kb: "cancel" },
      { signal: ac.signal },
    );
    expect(results[0].status).toBe("cancelled");
    expect(await store.listDocuments({ kb: "cancel" })).toEqual([]);
  });

  it("re-indexes one document from its stored text", async () => {
    const [r] = await ingestUploads(store, [{ name: "again.md", data: makeMarkdown("Reindex me please") }], { kb: "re" });
    const before = await store.getChunks(r.documentId!);
    const doc = await reindexDocument(store, r.documentId!);
    expect(doc.chunkCount).toBe(before.length);
    expect((await store.getChunks(r.documentId!)).map((c) => c.text)).toEqual(before.map((c) => c.text));
    await expect(reindexDocument(store, "nope")).rejects.toMatchObject({ status: 404 });
  });
});
