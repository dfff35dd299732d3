/**
 * FAQ knowledge on a real LanceDB store in a temp dir: offline extraction at ingest (Markdown question
 * headings, Chinese 问：/答：, a question/answer CSV), FAQ search, and the MCP tools over real HTTP with the
 * SDK client (FAQ first in search_knowledge, add_faq refused without a read-write token, delete_faq,
 * resources).
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteKnowledgeBase, updateKnowledgeBase } from "@/lib/admin/knowledge-bases";
import type { AuthSettings } from "@/lib/auth/config";
import { createOfflineEmbedder } from "@/lib/embed";
import { extractFaqPairs } from "@/lib/faq/extract";
import { getFaqStore } from "@/lib/faq/store";
import { createBatchIngest, ingestDocument } from "@/lib/ingest";
import { createAccessToken, createKnowledgeBase } from "@/lib/kb";
import { openRegistry, type Registry } from "@/lib/kb/registry";
import { openStore, type Store } from "@/lib/store";
import { type LocalMcp, startLocalMcp } from "@/scripts/local-mcp";

const enc = new TextEncoder();
let dir: string;
let store: Store;
let registry: Registry;
let mcp: LocalMcp;
const OPEN: AuthSettings = { requireToken: false, loopbackOnly: true, localOwner: true, rateLimitPerMinute: 100_000, allowedOrigins: [] };
const secrets: Record<string, string> = {};
const docIds: Record<string, string> = {};

const MARKDOWN_FAQ = `# IT help desk FAQ

Answers to what people ask the help desk most.

## Accounts

### How do I reset my VPN token?

Open the self-service portal at portal.example, choose **Security**, then **Reset VPN token**. The new token arrives by SMS within two minutes.

### Why is my mailbox full?

Mailboxes hold 50 GB. Archive old mail with the Archive button.

## Hardware

Laptops are replaced every four years.
`;

const CHINESE_FAQ = `# 行政常见问题

问：如何申请停车位？
答：在行政系统提交“停车位申请”，审批通过后三个工作日内分配车位。

问：访客可以带宠物进入办公区吗？
答：不可以。导盲犬除外。
`;

const QA_CSV = `question,answer,category
How long is the warranty on company phones?,Company phones have a two-year warranty; bring them to the IT desk for repairs.,devices
Can I use my own laptop for work?,"Only with the MDM profile installed, which IT sets up in ten minutes.",devices
`;

async function connect(secret?: string): Promise<Client> {
  const client = new Client({ name: "faq-test", version: "1.0.0" });
  const headers: Record<string, string> = secret ? { Authorization: `Bearer ${secret}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit: { headers } }));
  return client;
}

const textOf = (r: unknown) => ((r as CallToolResult).content ?? []).map((c) => (c.type === "text" ? c.text : "")).join("\n");

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "faq-test-"));
  store = await openStore({ uri: dir, embedder: createOfflineEmbedder(256) });
  registry = await openRegistry(store, { defaultKb: "default" });
  docIds.md = (await ingestDocument(store, { filename: "helpdesk-faq.md", data: enc.encode(MARKDOWN_FAQ), kb: "default" })).document.id;
  docIds.zh = (await ingestDocument(store, { filename: "行政问答.md", data: enc.encode(CHINESE_FAQ), kb: "default" })).document.id;
  docIds.csv = (await ingestDocument(store, { filename: "devices.csv", data: enc.encode(QA_CSV), kb: "default" })).document.id;
  await ingestDocument(store, {
    filename: "handbook.md",
    kb: "default",
    data: enc.encode("# Handbook\n\n## VPN\n\nThe VPN connects you to the office network. Tokens expire every year.\n"),
  });
  secrets.rw = (await createAccessToken(store, registry, { name: "writer", scope: "read-write" })).secret;
  secrets.read = (await createAccessToken(store, registry, { name: "reader", scope: "read" })).secret;
  mcp = await startLocalMcp({ store, registry, auth: OPEN });
});

afterAll(async () => {
  await mcp?.close();
  await store?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("offline extraction", () => {
  it("recognises question headings, Q/A and 问/答 blocks, and stops at the next heading", () => {
    const md = extractFaqPairs(MARKDOWN_FAQ);
    expect(md.map((p) => p.question)).toEqual(["How do I reset my VPN token?", "Why is my mailbox full?"]);
    expect(md[1].answer).toBe("Mailboxes hold 50 GB. Archive old mail with the Archive button.");
    expect(extractFaqPairs("Q: What is the wifi password?\nA: It is on the badge.\n\nQ: Where is lunch?\nA: Floor 2.\n")).toEqual([
      expect.objectContaining({ question: "What is the wifi password?", answer: "It is on the badge." }),
      expect.objectContaining({ question: "Where is lunch?", answer: "Floor 2." }),
    ]);
    expect(extractFaqPairs("# Handbook\n\n## Leave\n\nTwenty days.\n")).toEqual([]);
    expect(extractFaqPairs("# 常见问题\n\n### 如何重置VPN令牌？\n\n在自助门户点击“重置令牌”。\n\n### 年假\n\n十五天。\n")).toEqual([
      expect.objectContaining({ question: "如何重置VPN令牌？", answer: "在自助门户点击“重置令牌”。" }),
    ]);
  });

  it("a Markdown FAQ yields its entries, each pointing at the chunk of its answer", async () => {
    const faqs = await (await getFaqStore(store)).list({ documentId: docIds.md });
    expect(faqs.map((f) => f.question).sort()).toEqual(["How do I reset my VPN token?", "Why is my mailbox full?"]);
    const vpn = faqs.find((f) => f.question.startsWith("How do I reset"))!;
    expect(vpn).toMatchObject({
      kb: "default",
      origin: "extracted",
      status: "accepted",
      source: { documentId: docIds.md, label: "document" },
    });
    expect(vpn.answer).toContain("Reset VPN token");
    const chunk = (await store.getChunk(vpn.source.chunkId!))!;
    expect(chunk.documentId).toBe(docIds.md);
    expect(chunk.text).toContain("self-service portal");
  });

  it("a Chinese 问：/答： document yields its entries", async () => {
    const faqs = await (await getFaqStore(store)).list({ documentId: docIds.zh });
    expect(faqs.map((f) => [f.question, f.answer]).sort()).toEqual([
      ["如何申请停车位？", "在行政系统提交“停车位申请”，审批通过后三个工作日内分配车位。"],
      ["访客可以带宠物进入办公区吗？", "不可以。导盲犬除外。"],
    ]);
    for (const f of faqs) expect((await store.getChunk(f.source.chunkId!))?.text).toContain(f.answer);
  });

  it("a question/answer CSV yields one entry per row", async () => {
    const faqs = await (await getFaqStore(store)).list({ documentId: docIds.csv });
    expect(faqs.map((f) => f.question).sort()).toEqual([
      "Can I use my own laptop for work?",
      "How long is the warranty on company phones?",
    ]);
    const phone = faqs.find((f) => f.question.includes("warranty"))!;
    expect(phone.answer).toMatch(/^Company phones have a two-year warranty; bring them to the IT desk for repairs\./);
  });

  it("re-ingesting a changed document replaces its extracted entries", async () => {
    const changed = MARKDOWN_FAQ.replace("### Why is my mailbox full?", "### How do I get more mailbox space?");
    await ingestDocument(store, { filename: "helpdesk-faq.md", data: enc.encode(changed), kb: "default" });
    const faqs = await (await getFaqStore(store)).list({ documentId: docIds.md });
    expect(faqs.map((f) => f.question).sort()).toEqual(["How do I get more mailbox space?", "How do I reset my VPN token?"]);
  });
});

describe("bulk ingest", () => {
  it("replaces the extracted entries of a whole batch together, each document its own, keeping review status", async () => {
    const faqDoc = (topic: string, questions: string[]) =>
      `# ${topic} FAQ\n\n${questions.map((q) => `### ${q}\n\nAsk the ${topic} desk about it: they answer within a day.`).join("\n\n")}`;
    const ingest = async (docs: [string, string][]) => {
      const batch = createBatchIngest(store, { maxDocuments: 10 });
      const ids = new Map<string, string>();
      for (const [name, text] of docs)
        ids.set(name, (await batch.add({ filename: name, data: enc.encode(text), kb: "bulk" })).result.document.id);
      expect(await batch.flush()).toEqual([]);
      return ids;
    };
    const faqs = await getFaqStore(store);
    const questions = async (documentId: string) => (await faqs.list({ documentId })).map((f) => f.question).sort();

    const ids = await ingest([
      ["travel.md", faqDoc("travel", ["How do I book a train?", "Who approves a flight?"])],
      ["payroll.md", faqDoc("payroll", ["When is salary paid?"])],
    ]);
    expect(await questions(ids.get("travel.md")!)).toEqual(["How do I book a train?", "Who approves a flight?"]);
    expect(await questions(ids.get("payroll.md")!)).toEqual(["When is salary paid?"]);
    const train = (await faqs.list({ documentId: ids.get("travel.md")! })).find((f) => f.question.includes("train"))!;
    await faqs.update(train.id, { status: "pending" });

    // Both change in one batch: travel loses a question, payroll gains one.
    const again = await ingest([
      ["travel.md", faqDoc("travel", ["How do I book a train?"])],
      ["payroll.md", faqDoc("payroll", ["When is salary paid?", "Where is my payslip?"])],
    ]);
    expect(again).toEqual(ids);
    expect(await questions(ids.get("travel.md")!)).toEqual(["How do I book a train?"]);
    expect(await questions(ids.get("payroll.md")!)).toEqual(["When is salary paid?", "Where is my payslip?"]);
    expect((await faqs.get(train.id))?.status).toBe("pending");
  });
});

describe("deleting a document", () => {
  it("takes its extracted entries with it", async () => {
    const faqs = await getFaqStore(store);
    expect((await faqs.search("warranty on company phones", { limit: 3 }))[0]?.faq.source.documentId).toBe(docIds.csv);
    await store.deleteDocument(docIds.csv);
    expect(await faqs.list({ documentId: docIds.csv })).toEqual([]);
    expect((await faqs.search("warranty on company phones", { limit: 3 })).some((h) => h.faq.source.documentId === docIds.csv)).toBe(false);
  });
});

describe("knowledge bases", () => {
  it("a renamed knowledge base keeps its FAQ entries; a deleted one takes them with it", async () => {
    const faqs = await getFaqStore(store);
    await createKnowledgeBase(store, registry, { name: "ops" });
    const [f] = await faqs.add([
      {
        kb: "ops",
        question: "Who is on call?",
        answer: "See the rota.",
        source: { documentId: null, chunkId: null, label: "UI" },
        origin: "manual",
      },
    ]);
    await updateKnowledgeBase(store, registry, "ops", { name: "ops-team" });
    expect((await faqs.get(f.id))?.kb).toBe("ops-team");
    await deleteKnowledgeBase(store, registry, "ops-team");
    expect(await faqs.get(f.id)).toBeNull();
  });
});

describe("FAQ search", () => {
  it("finds a FAQ by a paraphrase, strongly, in English and Chinese", async () => {
    const faqs = await getFaqStore(store);
    const [en] = await faqs.search("what's the procedure to reset a VPN token", { limit: 3 });
    expect(en.faq.question).toBe("How do I reset my VPN token?");
    expect(en.strong).toBe(true);
    const [zh] = await faqs.search("停车位怎么申请", { limit: 3 });
    expect(zh.faq.question).toBe("如何申请停车位？");
    expect(zh.strong).toBe(true);
    const weak = await faqs.search("annual leave carry over", { limit: 3 });
    expect(weak.every((h) => !h.strong)).toBe(true);
  });
});

describe("FAQ over MCP (real HTTP, SDK client)", () => {
  it("lists the FAQ tools with their annotations", async () => {
    const client = await connect(secrets.rw);
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get("search_faq")?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get("add_faq")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.get("delete_faq")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    await client.close();
  });

  it("search_knowledge puts a paraphrased question's FAQ first, typed and with its source", async () => {
    const client = await connect();
    const r = await client.callTool({ name: "search_knowledge", arguments: { query: "steps to reset the vpn token" } });
    const results = (r.structuredContent as { results: Record<string, unknown>[] }).results;
    expect(results[0]).toMatchObject({
      ref: 1,
      type: "faq",
      heading: "How do I reset my VPN token?",
      faq: { question: "How do I reset my VPN token?", source: { document_id: docIds.md, label: "document" } },
    });
    expect(String(results[0].text)).toContain("self-service portal");
    expect(results.length).toBeLessThanOrEqual(6);
    expect(results.slice(1).some((x) => x.type === undefined)).toBe(true);
    expect(textOf(r)).toMatch(/^\d+ results?[^\n]*\n\n\[1\] FAQ › How do I reset my VPN token\?/);
    // A question no FAQ answers gets passages only.
    const plain = await client.callTool({ name: "search_knowledge", arguments: { query: "office network connection" } });
    expect((plain.structuredContent as { results: { type?: string }[] }).results.every((x) => x.type !== "faq")).toBe(true);
    await client.close();
  });

  it("add_faq is refused without a read-write token; with one the entry is searchable first, readable, and deletable", async () => {
    const args = {
      question: "Who approves standing desks?",
      answer: "Facilities approves standing desks within a week.",
      phrasings: ["standing desk approval"],
    };
    for (const secret of [undefined, secrets.read]) {
      const client = await connect(secret);
      const refused = await client.callTool({ name: "add_faq", arguments: args }).catch((e: Error) => e);
      expect(String(refused)).toMatch(/add_faq requires a read-write access token/);
      const del = await client.callTool({ name: "delete_faq", arguments: { id: "0123456789abcdef01234567" } }).catch((e: Error) => e);
      expect(String(del)).toMatch(/delete_faq requires a read-write access token/);
      await client.close();
    }
    expect((await (await getFaqStore(store)).search("standing desks", { limit: 5 })).length).toBe(0);

    const writer = await connect(secrets.rw);
    const added = await writer.callTool({ name: "add_faq", arguments: args });
    expect(added.isError).toBeFalsy();
    const { faq, uri } = added.structuredContent as { faq: { id: string; kb: string }; uri: string };
    expect(uri).toBe(`kb://default/faq/${faq.id}`);

    const found = await writer.callTool({ name: "search_knowledge", arguments: { query: "which team approves a standing desk" } });
    const first = (found.structuredContent as { results: Record<string, unknown>[] }).results[0];
    expect(first).toMatchObject({
      type: "faq",
      text: args.answer,
      faq: { id: faq.id, source: { label: "token writer", document_id: null } },
    });

    const sf = await writer.callTool({ name: "search_faq", arguments: { query: "standing desk approval" } });
    expect((sf.structuredContent as { results: { faq: { id: string }; strong: boolean }[] }).results[0]).toMatchObject({
      faq: { id: faq.id },
      strong: true,
    });

    const resource = await writer.readResource({ uri });
    expect(resource.contents[0]).toMatchObject({ uri, mimeType: "text/markdown" });
    expect(String((resource.contents[0] as { text: string }).text)).toContain("## Who approves standing desks?");
    const listed = await writer.listResources();
    expect(listed.resources.some((x) => x.uri === uri)).toBe(true);

    const deleted = await writer.callTool({ name: "delete_faq", arguments: { id: faq.id } });
    expect(deleted.structuredContent).toEqual({ deleted: true, id: faq.id });
    const after = await writer.callTool({ name: "search_faq", arguments: { query: "standing desk approval" } });
    expect((after.structuredContent as { results: { faq: { id: string } }[] }).results.some((x) => x.faq.id === faq.id)).toBe(false);
    await writer.close();
  });

  it("add_faq validates its input", async () => {
    const writer = await connect(secrets.rw);
    const r = await writer.callTool({ name: "add_faq", arguments: { question: "  ", answer: "x" } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/question must not be empty/);
    await writer.close();
  });
});
