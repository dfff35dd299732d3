/** Knowledge bases and tokens on a real LanceDB store + registry in a temp dir. */
import * as lancedb from "@lancedb/lancedb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteKnowledgeBase, updateKnowledgeBase } from "@/lib/admin/knowledge-bases";
import { createOfflineEmbedder } from "@/lib/embed";
import { ingestDocument } from "@/lib/ingest";
import {
  createAccessToken,
  createKnowledgeBase,
  getKnowledgeBase,
  kbCatalog,
  listAccessTokens,
  listKnowledgeBases,
  revokeAccessToken,
} from "@/lib/kb/index";
import { GENERIC_SEARCH_TOOL, searchToolBase, searchToolDescription, searchToolNames } from "@/lib/kb/names";
import { openRegistry, type Registry } from "@/lib/kb/registry";
import { searchKnowledge } from "@/lib/retrieve";
import { openStore, type Store } from "@/lib/store";
import { openTempStore, type TempStore } from "@/lib/store/temp-store";
import { AppError } from "@/lib/types";

const enc = new TextEncoder();
let temp: TempStore;
let store: Store;
let registry: Registry;

beforeAll(async () => {
  temp = await openTempStore("kb-test-");
  store = temp.store;
  registry = await openRegistry(store, { defaultKb: "default" });
});

afterAll(async () => {
  await temp?.close();
});

async function rejects(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe("tool names and descriptions", () => {
  it("turns knowledge-base names into search_<slug> tool names", () => {
    expect(searchToolBase("hr")).toBe("search_hr");
    expect(searchToolBase("eng-docs")).toBe("search_eng_docs");
    expect(searchToolBase("Team Docs")).toBe("search_team_docs");
    expect(searchToolBase("人事")).toMatch(/^search_kb_[0-9a-f]{6}$/);
    expect(searchToolBase("x".repeat(80)).length).toBe(64);
    for (const n of [searchToolBase("a".repeat(40)), searchToolBase("人事")]) expect(n).toMatch(/^[a-z0-9_]{1,64}$/);
  });

  it("keeps names unique and never shadows a tool every server has (search_knowledge, search_faq)", () => {
    const names = searchToolNames(["a-b", "a_b", "knowledge", "faq"]);
    expect(new Set(names.values()).size).toBe(4);
    expect([...names.values()]).not.toContain(GENERIC_SEARCH_TOOL);
    expect(names.get("faq")).toMatch(/^search_faq_[0-9a-f]{6}$/);
    expect(names.get("a-b")).toBe("search_a_b");
    expect(names.get("a_b")).toMatch(/^search_a_b_[0-9a-f]{6}$/);
  });

  it("describes a knowledge base by its title, description and document titles", () => {
    const d = searchToolDescription({ name: "hr", title: "Human Resources", description: "Leave, pay and benefits." }, [
      "Travel policy",
      "Handbook",
    ]);
    expect(d).toMatch(/^Search the Human Resources knowledge base: Leave, pay and benefits\. Documents: Travel policy; Handbook\./);
    const many = searchToolDescription(
      { name: "x", title: "", description: "" },
      Array.from({ length: 30 }, (_, i) => `Doc ${i}`),
    );
    expect(many).toContain("Search the x knowledge base.");
    expect(many).toContain("… and 20 more");
    expect(searchToolDescription({ name: "e", title: "Empty", description: "" }, [])).toContain("holds no documents yet");
  });
});

describe("knowledge bases", () => {
  it("always has the default knowledge base and lists those implied by documents", async () => {
    await ingestDocument(store, {
      filename: "cli.md",
      kb: "from-cli",
      data: enc.encode("# CLI\n\nIngested with --kb from the command line.\n"),
    });
    const kbs = await listKnowledgeBases(store, registry);
    expect(kbs.find((k) => k.name === "default")).toMatchObject({ isDefault: true, documentCount: 0 });
    expect(kbs.find((k) => k.name === "from-cli")).toMatchObject({ isDefault: false, documentCount: 1, title: "from-cli" });
  });

  it("keeps the catalog until the documents or the registry change", async () => {
    const first = await kbCatalog(store, registry);
    expect(await kbCatalog(store, registry)).toBe(first); // nothing changed: not rebuilt
    await ingestDocument(store, { filename: "more.md", kb: "catalog-docs", data: enc.encode("# More\n\nA second document.\n") });
    const afterDoc = await kbCatalog(store, registry);
    expect(afterDoc).not.toBe(first);
    expect(afterDoc.find((e) => e.kb.name === "catalog-docs")?.titles).toEqual(expect.arrayContaining(["More"]));
    await createKnowledgeBase(store, registry, { name: "catalog-check" });
    expect((await kbCatalog(store, registry)).map((e) => e.kb.name)).toContain("catalog-check");
    await deleteKnowledgeBase(store, registry, "catalog-check");
    expect((await kbCatalog(store, registry)).map((e) => e.kb.name)).not.toContain("catalog-check");
  });

  it("creates, describes and refuses bad or duplicate names", async () => {
    const kb = await createKnowledgeBase(store, registry, { name: "hr", title: "Human Resources", description: "People matters" });
    expect(kb).toMatchObject({ name: "hr", title: "Human Resources", description: "People matters", documentCount: 0 });
    expect((await rejects(createKnowledgeBase(store, registry, { name: "hr" }))).status).toBe(409);
    expect((await rejects(createKnowledgeBase(store, registry, { name: "from-cli" }))).status).toBe(409);
    for (const bad of ["", "Upper", "-dash", "a b", "x".repeat(41), "a/b"]) {
      expect((await rejects(createKnowledgeBase(store, registry, { name: bad }))).code).toBe("bad_request");
    }
    const updated = await updateKnowledgeBase(store, registry, "hr", { description: "Leave, pay and travel." });
    expect(updated).toMatchObject({ name: "hr", title: "Human Resources", description: "Leave, pay and travel." });
    expect((await getKnowledgeBase(store, registry, "hr"))!.description).toBe("Leave, pay and travel.");
  });

  it("renames a knowledge base with its documents, chunks and tokens", async () => {
    await createKnowledgeBase(store, registry, { name: "ops", title: "Operations" });
    const { document } = await ingestDocument(store, {
      filename: "runbook.md",
      kb: "ops",
      data: enc.encode("# Runbook\n\n## Restart\n\nRestart the zephyrine service with the blue lever.\n"),
    });
    const { token } = await createAccessToken(store, registry, { name: "ops bot", scope: "read", kb: "ops" });

    const renamed = await updateKnowledgeBase(store, registry, "ops", { name: "operations" });
    expect(renamed).toMatchObject({ name: "operations", title: "Operations", documentCount: 1 });
    expect(await getKnowledgeBase(store, registry, "ops")).toBeNull();
    expect(await store.listDocuments({ kb: "ops" })).toEqual([]);
    const [moved] = await store.listDocuments({ kb: "operations" });
    expect(moved.source).toBe("runbook.md");
    expect(moved.id).not.toBe(document.id);
    expect(await store.getDocumentText(moved.id)).toContain("zephyrine");
    const chunks = await store.getChunks(moved.id);
    expect(chunks.length).toBe(document.chunkCount);
    expect(chunks.every((c) => c.kb === "operations" && c.id.startsWith(`${moved.id}:`))).toBe(true);
    expect(await store.getChunks(document.id)).toEqual([]);
    const hits = await searchKnowledge(store, { query: "zephyrine blue lever", kb: "operations" });
    expect(hits[0].document.id).toBe(moved.id);
    expect(await searchKnowledge(store, { query: "zephyrine blue lever", kb: "ops" })).toEqual([]);
    expect((await registry.getToken(token.id))!.kb).toBe("operations");

    // The old name is free again, and a new upload of the same file there leaves the moved one alone.
    await createKnowledgeBase(store, registry, { name: "ops" });
    await ingestDocument(store, { filename: "runbook.md", kb: "ops", data: enc.encode("# Runbook\n\nA different runbook.\n") });
    expect(await store.getDocumentText(moved.id)).toContain("zephyrine");
    expect((await store.listDocuments({ kb: "ops" })).length).toBe(1);
  });

  it("refuses to rename onto an existing name or to rename/delete the default", async () => {
    expect((await rejects(updateKnowledgeBase(store, registry, "operations", { name: "hr" }))).status).toBe(409);
    expect((await rejects(updateKnowledgeBase(store, registry, "default", { name: "other" }))).code).toBe("bad_request");
    expect((await rejects(deleteKnowledgeBase(store, registry, "default"))).code).toBe("bad_request");
    expect((await rejects(updateKnowledgeBase(store, registry, "nope", { title: "x" }))).status).toBe(404);
    expect((await rejects(deleteKnowledgeBase(store, registry, "nope"))).status).toBe(404);
  });

  it("deletes a knowledge base with its documents and chunks, and revokes tokens limited to it", async () => {
    const { token, secret } = await createAccessToken(store, registry, { name: "ops-only", scope: "read", kb: "operations" });
    const [doc] = await store.listDocuments({ kb: "operations" });
    const result = await deleteKnowledgeBase(store, registry, "operations");
    expect(result.documents).toBe(1);
    expect(await getKnowledgeBase(store, registry, "operations")).toBeNull();
    expect(await store.getDocument(doc.id)).toBeNull();
    const conn = await lancedb.connect(temp.dir);
    const chunks = await conn.openTable("chunks");
    expect(await chunks.countRows("kb = 'operations'")).toBe(0);
    chunks.close();
    conn.close();
    expect((await registry.getToken(token.id))!.revoked).toBe(true);
    expect(await registry.authenticate(secret)).toBeNull();
    // Other knowledge bases keep their documents.
    expect((await store.listDocuments({ kb: "from-cli" })).length).toBe(1);
  });
});

describe("access tokens", () => {
  it("returns the secret once, stores only its hash, authenticates and revokes", async () => {
    const { token, secret } = await createAccessToken(store, registry, { name: "laptop", scope: "read-write" });
    expect(secret).toMatch(/^kbt_/);
    expect(token).toMatchObject({ name: "laptop", scope: "read-write", kb: null, revoked: false });
    expect(JSON.stringify(token)).not.toContain(secret);
    const listed = await listAccessTokens(registry);
    expect(JSON.stringify(listed)).not.toContain(secret);
    expect(listed.find((t) => t.id === token.id)).not.toHaveProperty("hash");
    const stored = (await registry.listTokens()).find((t) => t.id === token.id)!;
    expect(stored.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.hash).not.toContain(secret);

    expect((await registry.authenticate(secret))?.id).toBe(token.id);
    expect(await registry.authenticate(`${secret}x`)).toBeNull();
    await registry.touchToken(token.id);
    expect((await registry.getToken(token.id))!.lastUsedAt).not.toBeNull();

    await revokeAccessToken(registry, token.id);
    expect(await registry.authenticate(secret)).toBeNull();
    expect((await listAccessTokens(registry)).find((t) => t.id === token.id)!.revoked).toBe(true);
    expect((await rejects(revokeAccessToken(registry, "tok_0000000000000000"))).status).toBe(404);
  });

  it("refuses a token for an unknown knowledge base or without a name", async () => {
    expect((await rejects(createAccessToken(store, registry, { name: "x", scope: "read", kb: "nope" }))).status).toBe(404);
    expect((await rejects(createAccessToken(store, registry, { name: "  ", scope: "read" }))).code).toBe("bad_request");
  });

  it("sees tokens created through another connection (another replica)", async () => {
    const otherStore = await openStore({ uri: temp.dir, embedder: createOfflineEmbedder(256) });
    try {
      const other = await openRegistry(otherStore);
      const { secret } = await createAccessToken(otherStore, other, { name: "replica", scope: "read" });
      expect((await registry.authenticate(secret))?.name).toBe("replica");
    } finally {
      otherStore.close();
    }
  });
});
