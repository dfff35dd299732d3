/**
 * Sources a person picked: the `documents` argument of the search tools and the server's document scope
 * (the chat's X-Document-Filter) limit the passages, on a real LanceDB store in a temp dir.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestMarkdown } from "@/lib/ingest/test-kbs";
import type { Store } from "@/lib/store";
import { openTempStore, type TempStore } from "@/lib/store/temp-store";
import { decodeDocumentFilter, encodeDocumentFilter, scopedDocuments } from "@/lib/tools/scope";
import type { KnowledgeServerOptions } from "./index";
import { connectInMemory } from "./test-client";

let temp: TempStore;
let store: Store;
const ids: Record<string, string> = {};
/** A file someone attached to a question (lib/tools/scope.ts isAttachmentKb): its own knowledge base. */
const ATTACHMENT_KB = "~user-1~3f9a0c2e-5b1d-4c7a-9e2f-0a1b2c3d4e5f";

beforeAll(async () => {
  temp = await openTempStore("mcp-scope-test-");
  store = temp.store;
  await ingestMarkdown(store, "hr", {
    "bikes.md": "# Bikes\n\nBike parking is in the north garage; the bike allowance is 30 euros a month.",
    "cars.md": "# Cars\n\nCar parking is in the south garage; the parking allowance is 50 euros a month.",
  });
  await ingestMarkdown(store, ATTACHMENT_KB, {
    "scooter.md": "# Scooters\n\nScooter parking is in the west garage; the scooter allowance is 20 euros a month.",
  });
  for (const d of await store.listDocuments()) ids[d.source] = d.id;
});

afterAll(async () => {
  await temp?.close();
});

const connect = (options: KnowledgeServerOptions = {}) => connectInMemory(store, options);

const documentsOf = (r: Awaited<ReturnType<Client["callTool"]>>) =>
  new Set((r.structuredContent as { results: { document: { id: string } }[] }).results.map((x) => x.document.id));

describe("documents scope", () => {
  it("search_knowledge's documents argument keeps only those documents' passages", async () => {
    const client = await connect();
    const all = await client.callTool({ name: "search_knowledge", arguments: { query: "parking allowance garage" } });
    expect(documentsOf(all)).toEqual(new Set([ids["bikes.md"], ids["cars.md"]]));
    const picked = await client.callTool({
      name: "search_knowledge",
      arguments: { query: "parking allowance garage", documents: [ids["cars.md"]] },
    });
    expect(documentsOf(picked)).toEqual(new Set([ids["cars.md"]]));
    const bad = await client.callTool({ name: "search_knowledge", arguments: { query: "parking", documents: "cars" } });
    expect(bad.isError).toBe(true);
  });

  it("a server limited to documents (the chat's pick) searches only those, whatever the tool is asked", async () => {
    const client = await connect({ documents: [ids["bikes.md"]] });
    const r = await client.callTool({ name: "search_knowledge", arguments: { query: "car parking south garage" } });
    expect(documentsOf(r)).toEqual(new Set([ids["bikes.md"]]));
    const outside = await client.callTool({
      name: "search_knowledge",
      arguments: { query: "car parking south garage", documents: [ids["cars.md"]] },
    });
    expect(documentsOf(outside).size).toBe(0);
    const connector = await client.callTool({ name: "search", arguments: { query: "parking garage" } });
    const urls = (connector.structuredContent as { results: { url: string }[] }).results.map((x) => x.url);
    expect(urls.length).toBeGreaterThan(0);
    expect(urls.every((u) => u.includes(encodeURIComponent(ids["bikes.md"])))).toBe(true);
  });

  it("a question's attachment is in no search, list or read unless the server (the app's chat) names it", async () => {
    const att = ids["scooter.md"];
    const query = { query: "scooter parking west garage allowance" };
    const anyone = await connect();
    expect(documentsOf(await anyone.callTool({ name: "search_knowledge", arguments: query }))).not.toContain(att);
    // Naming it in the tool's argument reaches nothing: only the server's list (set by the chat) does.
    const asked = await anyone.callTool({ name: "search_knowledge", arguments: { ...query, documents: [att] } });
    expect(documentsOf(asked).size).toBe(0);
    const listed = await anyone.callTool({ name: "list_documents", arguments: {} });
    const listedIds = (listed.structuredContent as { documents: { id: string }[] }).documents.map((d) => d.id);
    expect(listedIds).toContain(ids["cars.md"]);
    expect(listedIds).not.toContain(att);
    expect((await anyone.callTool({ name: "read_document", arguments: { document_id: att } })).isError).toBe(true);
    expect(await store.listKbs()).not.toContain(ATTACHMENT_KB);

    for (const chat of [await connect({ documents: [att] }), await connect({ kbs: ["hr"], documents: [att, ids["cars.md"]] })]) {
      expect(documentsOf(await chat.callTool({ name: "search_knowledge", arguments: query }))).toContain(att);
      expect((await chat.callTool({ name: "read_document", arguments: { document_id: att } })).isError).toBeFalsy();
    }
  });

  it("the rule and the header's encoding", () => {
    expect(scopedDocuments(undefined, undefined)).toBeUndefined();
    expect(scopedDocuments(["a", "b"], ["b", "c"])).toEqual(["b"]);
    expect(scopedDocuments([], ["c"])).toEqual(["c"]);
    expect(decodeDocumentFilter(encodeDocumentFilter(["a,b", "c d"]))).toEqual(["a,b", "c d"]);
    expect(decodeDocumentFilter(null)).toBeUndefined();
  });
});
