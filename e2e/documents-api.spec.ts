/**
 * Documents over real HTTP: multipart uploads to the built server (NDJSON progress), then retrieval
 * through the app's MCP endpoint with the SDK client, on LanceDB on disk. Fixtures are generated here.
 */
import { readdir } from "node:fs/promises";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CSV_QUESTION,
  DOCX_PHRASES,
  GBK_PHRASES,
  HTML_PHRASES,
  JSON_PHRASE,
  makeMarkdown,
  makePdf,
  PDF_PHRASES,
  uploadBatch,
} from "./fixtures/make-fixtures";
import { connectMcp, mcpUrl, resultText, search } from "./helpers/mcp";
import { expect, PORTS, test, WORKER_DATA_DIR } from "./helpers/servers";

const BASE = `http://127.0.0.1:${PORTS.offline}`;
const DATA_DIR = path.resolve(WORKER_DATA_DIR, "offline");
/** A knowledge base of this run only, so results never depend on earlier runs. */
const KB = `e2e-docs-${Date.now().toString(36)}`;

interface FileResult {
  index: number;
  name: string;
  status: string;
  documentId?: string;
  chunkCount?: number;
  error?: { code: string; message: string };
}
type Event =
  | { type: "progress"; index: number; name: string; stage: string; done?: number; total?: number }
  | { type: "result"; result: FileResult }
  | { type: "summary"; results: FileResult[] };

function form(files: { name: string; data: Uint8Array }[], fields: Record<string, string | string[]> = {}): FormData {
  const fd = new FormData();
  for (const f of files) fd.append("files", new File([Buffer.from(f.data)], f.name));
  for (const [k, v] of Object.entries(fields)) for (const x of [v].flat()) fd.append(k, x);
  return fd;
}

async function uploadNdjson(files: { name: string; data: Uint8Array }[], fields: Record<string, string | string[]> = { kb: KB }) {
  const res = await fetch(`${BASE}/api/documents`, {
    method: "POST",
    body: form(files, fields),
    headers: { accept: "application/x-ndjson" },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("application/x-ndjson");
  const events = (await res.text())
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Event);
  const summary = events.at(-1);
  expect(summary?.type).toBe("summary");
  return { events, results: (summary as Extract<Event, { type: "summary" }>).results };
}

async function uploadJson(files: { name: string; data: Uint8Array }[], fields: Record<string, string | string[]> = { kb: KB }) {
  const res = await fetch(`${BASE}/api/documents`, { method: "POST", body: form(files, fields) });
  return { status: res.status, body: (await res.json()) as { results?: FileResult[]; error?: { code: string; message: string } } };
}

let client: Client;
const ids: Record<string, string> = {};
let upload: Awaited<ReturnType<typeof uploadNdjson>>;

// One multi-file upload of every fixture; the tests below read what it stored. (A failed test restarts
// the worker, which loads this file again with a new KB and uploads again.)
test.beforeAll(async () => {
  client = await connectMcp(mcpUrl(PORTS.offline));
  const files = await uploadBatch();
  upload = await uploadNdjson(files, { kb: KB, author: "E2E Author", tags: ["e2e", "fixtures"] });
  for (const r of upload.results) if (r.documentId) ids[r.name] = r.documentId;
});
test.afterAll(async () => {
  await client?.close();
  // The worker's offline app serves the specs after this one: its library goes back to knowledge/ alone.
  await fetch(`${BASE}/api/kbs/${KB}`, { method: "DELETE" });
});

test("a multi-file upload streams progress; broken PDFs fail alone with their messages", async () => {
  const { events, results } = upload;
  expect(results.map((r) => [r.name, r.status])).toEqual([
    ["turbine-report.pdf", "added"],
    ["broken.pdf", "failed"],
    ["scan.pdf", "failed"],
    ["handbook.docx", "added"],
    ["heron.html", "added"],
    ["cities.csv", "added"],
    ["差旅制度.txt", "added"],
    ["station.json", "added"],
  ]);
  expect(results[1].error).toMatchObject({ code: "parse_failed", message: expect.stringContaining("corrupt") });
  expect(results[2].error?.message).toContain("this PDF has no text layer and no scanned page");

  // every stage, per file, in order (the offline default keeps no vectors, so no "embedding" stage)
  const stagesOf = (i: number) => [
    ...new Set(events.filter((e) => e.type === "progress" && e.index === i).map((e) => (e as { stage: string }).stage)),
  ];
  expect(stagesOf(0)).toEqual(["received", "parsing", "chunking", "indexing", "done"]);
  expect(stagesOf(1)).toEqual(["received", "parsing", "failed"]);
  expect(events.find((e) => e.type === "progress" && e.index === 2 && e.stage === "failed")).toMatchObject({
    name: "scan.pdf",
    code: "parse_failed",
    error: expect.stringContaining("no text layer"),
  });
  const done = events.find((e) => e.type === "progress" && e.index === 0 && e.stage === "done") as {
    documentId?: string;
    chunkCount?: number;
  };
  expect(done.documentId).toBe(ids["turbine-report.pdf"]);
  expect(done.chunkCount).toBeGreaterThan(0);

  // the library lists exactly the good files, with their metadata
  const list = (await (await fetch(`${BASE}/api/documents?kb=${encodeURIComponent(KB)}`)).json()) as {
    documents: { source: string; author: string; tags: string[]; mimeType: string }[];
  };
  expect(list.documents.map((d) => d.source).sort()).toEqual(
    ["turbine-report.pdf", "handbook.docx", "heron.html", "cities.csv", "差旅制度.txt", "station.json"].sort(),
  );
  expect(list.documents.every((d) => d.author === "E2E Author" && d.tags.join() === "e2e,fixtures")).toBe(true);
});

test("each format is found through MCP search_knowledge by a phrase only it contains", async () => {
  const cases: [string, string][] = [
    ["Brindlewick ergonomic chair", "handbook.docx"],
    [DOCX_PHRASES.tableCell, "handbook.docx"],
    [HTML_PHRASES.article, "heron.html"],
    [GBK_PHRASES.body, "差旅制度.txt"],
    [JSON_PHRASE, "station.json"],
    ...Object.keys(PDF_PHRASES).map((p): [string, string] => [p, "turbine-report.pdf"]),
  ];
  for (const [phrase, source] of cases) {
    const { results } = await search(client, { query: phrase, kb: KB });
    expect(results[0]?.document.source, phrase).toBe(source);
    expect(results[0].text.replace(/\s+/g, " "), phrase).toContain(phrase.split(" ")[0]);
  }
});

test("PDF results carry the page the phrase is on", async () => {
  for (const [phrase, page] of Object.entries(PDF_PHRASES)) {
    const { results, text } = await search(client, { query: phrase, kb: KB });
    const hit = results.find((r) => r.text.includes(phrase));
    expect(hit, phrase).toBeDefined();
    expect(hit!.document.source).toBe("turbine-report.pdf");
    expect(hit!.page, phrase).toBe(page);
    expect(text).toContain(String(page));
  }
  const doc = (await (await fetch(`${BASE}/api/documents/${ids["turbine-report.pdf"]}`)).json()) as {
    chunks: { page: number | null; text: string }[];
  };
  expect(doc.chunks.length).toBeGreaterThan(0);
  expect(doc.chunks.every((c) => c.page !== null)).toBe(true);
});

test("HTML navigation, footer and scripts are not indexed", async () => {
  for (const phrase of [HTML_PHRASES.nav, HTML_PHRASES.script]) {
    const { results } = await search(client, { query: phrase, kb: KB });
    expect(
      results.filter((r) => r.text.includes(phrase.split(" ")[0])),
      phrase,
    ).toEqual([]);
  }
  const doc = (await (await fetch(`${BASE}/api/documents/${ids["heron.html"]}`)).json()) as { chunks: { text: string }[] };
  const all = doc.chunks.map((c) => c.text).join("\n");
  expect(all).toContain(HTML_PHRASES.article);
  expect(all).not.toContain("Gobbledook");
});

test("a CSV row is found by a question about one of its cells", async () => {
  const { results } = await search(client, { query: `Which city has the mascot ${CSV_QUESTION.phrase}?`, kb: KB });
  expect(results[0]?.document.source).toBe("cities.csv");
  expect(results[0].text).toContain(`mascot: ${CSV_QUESTION.phrase}`);
  expect(results[0].text).toMatch(new RegExp(`city: ${CSV_QUESTION.city}\\ncountry: \\w+\\nmascot: ${CSV_QUESTION.phrase}`));
});

test("the same content uploaded twice is not duplicated", async () => {
  const before = (await (await fetch(`${BASE}/api/documents?kb=${KB}`)).json()).documents.length;
  const { status, body } = await uploadJson([{ name: "turbine-report-copy.pdf", data: await makePdf() }]);
  expect(status).toBe(200);
  expect(body.results?.[0]).toMatchObject({ status: "unchanged", documentId: ids["turbine-report.pdf"] });
  const after = (await (await fetch(`${BASE}/api/documents?kb=${KB}`)).json()).documents.length;
  expect(after).toBe(before);
});

test("a changed file with the same name replaces the old version", async () => {
  const first = await uploadJson([
    { name: "release-notes.md", data: makeMarkdown("The Plumtree release adds offline mode.", "Release notes") },
  ]);
  expect(first.body.results?.[0].status).toBe("added");
  const second = await uploadJson([
    { name: "release-notes.md", data: makeMarkdown("The Quincewood release adds dark mode.", "Release notes") },
  ]);
  expect(second.body.results?.[0]).toMatchObject({ status: "updated", documentId: first.body.results?.[0].documentId });

  const old = await search(client, { query: "Plumtree release", kb: KB });
  expect(old.results.filter((r) => r.text.includes("Plumtree"))).toEqual([]);
  const fresh = await search(client, { query: "Quincewood release", kb: KB });
  expect(fresh.results[0]?.document.source).toBe("release-notes.md");
  const list = (await (await fetch(`${BASE}/api/documents?kb=${KB}&q=release-notes`)).json()).documents;
  expect(list).toHaveLength(1);
});

test("traversal-looking and Unicode file names are stored as plain names", async () => {
  const { results } = await uploadNdjson([
    { name: "../../etc/passwd.txt", data: Buffer.from("Xylocarp shell notes: nothing secret here.") },
    { name: "报告 2024.md", data: makeMarkdown("二〇二四年度报告：营收增长百分之十二。", "年度报告") },
  ]);
  expect(results.map((r) => [r.status, r.name])).toEqual([
    ["added", "passwd.txt"],
    ["added", "报告 2024.md"],
  ]);
  const { results: hits } = await search(client, { query: "Xylocarp shell notes", kb: KB });
  expect(hits[0]?.document.source).toBe("passwd.txt");
  // nothing named after the upload was written to disk
  const names = (await readdir(path.resolve(DATA_DIR), { recursive: true })).map((n) => path.basename(String(n)));
  expect(names).not.toContain("passwd.txt");
  expect(names).not.toContain("报告 2024.md");
});

test("unsupported types fail with the list of supported ones; size and count limits answer 413/400", async () => {
  const gif = Buffer.from("GIF89a\x01\x00\x01\x00", "latin1");
  const unsupported = await uploadJson([{ name: "photo.gif", data: gif }]);
  expect(unsupported.status).toBe(415);
  expect(unsupported.body.results?.[0].error).toMatchObject({ code: "unsupported_type", message: expect.stringContaining(".pdf") });
  expect(unsupported.body.results?.[0].error?.message).toContain(".docx");

  const big = await uploadJson([{ name: "huge.txt", data: Buffer.alloc(51 * 1024 * 1024, 0x61) }]);
  expect(big.status).toBe(413);
  // Refused while it was received; reported for the file (an upload's other files would still go in).
  expect(big.body.results?.[0].error).toMatchObject({ code: "too_large", message: expect.stringContaining("huge.txt") });

  const many = await uploadJson(Array.from({ length: 21 }, (_, i) => ({ name: `n${i}.txt`, data: Buffer.from(`note ${i}`) })));
  expect(many.status).toBe(400);
  expect(many.body.error?.message).toContain("at most 20");

  const none = await fetch(`${BASE}/api/documents`, { method: "POST", body: new FormData() });
  expect(none.status).toBe(400);
  expect(((await none.json()) as { error: { code: string } }).error.code).toBe("bad_request");

  // nothing of the refused uploads was stored
  const list = (await (await fetch(`${BASE}/api/documents?kb=${KB}`)).json()).documents as { source: string }[];
  expect(list.map((d) => d.source)).not.toContain("huge.txt");
  expect(list.map((d) => d.source)).not.toContain("n0.txt");
});

test("title, author and tags are validated and stored", async () => {
  const one = await uploadJson([{ name: "memo.md", data: makeMarkdown("Memo about the Ashgrove depot.", "Memo") }], {
    kb: KB,
    title: "Depot memo",
    author: "Ops",
    tags: "logistics, depots",
  });
  expect(one.status).toBe(200);
  const doc = (await (await fetch(`${BASE}/api/documents/${one.body.results?.[0].documentId}`)).json()).document;
  expect(doc).toMatchObject({ title: "Depot memo", author: "Ops", tags: ["logistics", "depots"], origin: "upload" });

  const two = await uploadJson(
    [
      { name: "a.md", data: makeMarkdown("a") },
      { name: "b.md", data: makeMarkdown("b") },
    ],
    { kb: KB, title: "Both" },
  );
  expect(two.status).toBe(400);
  expect(two.body.error?.message).toContain("single file");

  const longKb = await uploadJson([{ name: "c.md", data: makeMarkdown("c") }], { kb: "k".repeat(65) });
  expect(longKb.status).toBe(400);
  expect(longKb.body.error?.code).toBe("bad_request");
});

test("browser requests from a foreign origin can neither upload nor delete", async () => {
  const evil = { origin: "http://evil.example" };
  const up = await fetch(`${BASE}/api/documents`, {
    method: "POST",
    body: form([{ name: "evil.md", data: makeMarkdown("Planted text") }], { kb: KB }),
    headers: evil,
  });
  expect(up.status).toBe(403);
  const del = await fetch(`${BASE}/api/documents/${ids["heron.html"]}`, { method: "DELETE", headers: evil });
  expect(del.status).toBe(403);
  const sources = ((await (await fetch(`${BASE}/api/documents?kb=${KB}`)).json()).documents as { source: string }[]).map((d) => d.source);
  expect(sources).toContain("heron.html");
  expect(sources).not.toContain("evil.md");
});

test("one document shows its chunks and can be re-indexed", async () => {
  const id = ids["handbook.docx"];
  const res = await fetch(`${BASE}/api/documents/${id}`);
  expect(res.status).toBe(200);
  const { document, chunks } = (await res.json()) as { document: { chunkCount: number }; chunks: { heading: string; text: string }[] };
  expect(chunks).toHaveLength(document.chunkCount);
  expect(chunks.find((c) => c.text.includes("Brindlewick"))?.heading).toContain(DOCX_PHRASES.subheading);

  const re = await fetch(`${BASE}/api/documents/${id}/reindex`, { method: "POST" });
  expect(re.status).toBe(200);
  expect(((await re.json()) as { document: { chunkCount: number } }).document.chunkCount).toBe(document.chunkCount);
  expect((await search(client, { query: "Brindlewick ergonomic chair", kb: KB })).results[0]?.document.id).toBe(id);

  expect((await fetch(`${BASE}/api/documents/not-a-real-id`)).status).toBe(404);
  expect((await fetch(`${BASE}/api/documents/bad%20id%3F`)).status).toBe(400);
});

test("deleting a document removes it from search and from list_documents immediately", async () => {
  const id = ids["station.json"];
  expect((await search(client, { query: JSON_PHRASE, kb: KB })).results[0]?.document.id).toBe(id);

  const del = await fetch(`${BASE}/api/documents/${id}`, { method: "DELETE" });
  expect(del.status).toBe(200);

  const { results } = await search(client, { query: JSON_PHRASE, kb: KB });
  expect(results.filter((r) => r.document.id === id)).toEqual([]);
  const listed = await client.callTool({ name: "list_documents", arguments: { kb: KB } });
  const docs = (listed.structuredContent as { documents: { id: string }[] }).documents;
  expect(docs.map((d) => d.id)).not.toContain(id);
  expect(docs.map((d) => d.id)).toContain(ids["heron.html"]);
  expect(resultText(listed)).not.toContain("station.json");
  expect((await fetch(`${BASE}/api/documents/${id}`)).status).toBe(404);
  expect((await fetch(`${BASE}/api/documents/${id}`, { method: "DELETE" })).status).toBe(404);
});
