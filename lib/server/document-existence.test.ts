/**
 * Existence does not leak (the route modules themselves, on a real store): a reader asking for a document of a
 * knowledge base it may not read — by a random id, an id computed from a guessed file name, or the real id —
 * gets exactly the answer of a document that does not exist, at every route that takes a document id (and so
 * for a FAQ entry); and a conversation's picked documents keep none it may not read, counting them as removed
 * like deleted ones.
 */
import { createHash } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getConversation, PATCH as patchConversation } from "@/app/api/conversations/[id]/route";
import { POST as createConversation } from "@/app/api/conversations/route";
import { POST as reindexDocument } from "@/app/api/documents/[id]/reindex/route";
import { DELETE as deleteDocument, GET as getDocument } from "@/app/api/documents/[id]/route";
import { DELETE as deleteFaq, GET as getFaq, PATCH as patchFaq } from "@/app/api/faqs/[id]/route";
import { GET as generationProgress } from "@/app/api/faqs/generate/route";
import { GET as overview } from "@/app/api/overview/route";
import { createUser } from "@/lib/auth/accounts/service";
import { CSRF_HEADER, startSession } from "@/lib/auth/accounts/sessions";
import { getAccountStore } from "@/lib/auth/accounts/store";
import { PEER_HEADER, peerHeaderFor } from "@/lib/auth/peer";
import { getConversations } from "@/lib/conversations/store";
import { addFaq } from "@/lib/faq/service";
import { ingestMarkdown } from "@/lib/ingest/test-kbs";
import { getStore, type Store } from "@/lib/store";
import { leaveTestDataDir, useTestDataDir } from "@/lib/test-helpers/env";

const saved = { ...process.env };
let dir: string;
let store: Store;
let cookie = "";
let csrf = "";
const ids: Record<string, string> = {};

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** A request of the signed-in reader (of "hr" only), from another machine. */
function asReader(handler: Handler, method: string, url: string, params: Record<string, string> = {}, json?: unknown) {
  const headers: Record<string, string> = { host: "10.0.0.1:3000", [PEER_HEADER]: peerHeaderFor("10.0.0.9"), cookie };
  if (method !== "GET") headers[CSRF_HEADER] = csrf;
  if (json !== undefined) headers["content-type"] = "application/json";
  const body = json === undefined ? undefined : JSON.stringify(json);
  return handler(new Request(`http://10.0.0.1:3000${url}`, { method, headers, body }), { params: Promise.resolve(params) });
}

/** Status and body of an answer, with `id` written as <id>, so answers about two ids compare. */
async function shape(res: Promise<Response>, id: string) {
  const r = await res;
  return { status: r.status, body: (await r.text()).replaceAll(id, "<id>") };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "document-existence-test-"));
  useTestDataDir(dir, { REQUIRE_LOGIN: "1" }, ["TRUSTED_PROXIES", "LOCAL_OWNER"]);
  store = await getStore();
  await ingestMarkdown(store, "hr", { "leave.md": "# Leave\n\nTwenty days of annual leave.\n" });
  await ingestMarkdown(store, "board", { "layoffs-2027.md": "# Layoffs\n\nThe board's plan for 2027.\n" });
  for (const d of await store.listDocuments()) ids[d.source] = d.id;
  const accounts = await getAccountStore(store);
  const reader = await createUser(
    accounts,
    { email: "reader@team.test", name: "", password: "a long reader password", role: "reader", kbs: ["hr"] },
    ["hr", "board"],
  );
  const cookies = await startSession(accounts, reader);
  cookie = cookies.map((c) => c.slice(0, c.indexOf(";"))).join("; ");
  csrf = cookies[1].slice(cookies[1].indexOf("=") + 1, cookies[1].indexOf(";"));
});

afterAll(() => leaveTestDataDir(store, saved, dir));

describe("a document the caller may not read", () => {
  const missing = "0123456789abcdef01234567";
  const guessed = () => createHash("sha256").update("board\u0000layoffs-2027.md").digest("hex").slice(0, 24);
  const routes: [string, (id: string) => Promise<Response>][] = [
    ["GET /api/documents/<id>", (id) => asReader(getDocument, "GET", `/api/documents/${id}`, { id })],
    ["DELETE /api/documents/<id>", (id) => asReader(deleteDocument, "DELETE", `/api/documents/${id}`, { id })],
    ["POST /api/documents/<id>/reindex", (id) => asReader(reindexDocument, "POST", `/api/documents/${id}/reindex`, { id })],
    ["GET /api/overview?document=<id>", (id) => asReader(overview, "GET", `/api/overview?document=${id}`)],
    ["GET /api/faqs/generate?document_id=<id>", (id) => asReader(generationProgress, "GET", `/api/faqs/generate?document_id=${id}`)],
  ];

  it.each(routes)("%s answers as for one that does not exist, by its id or one computed from its name", async (_, call) => {
    const absent = await shape(call(missing), missing);
    expect(absent.status).toBe(404);
    for (const id of [ids["layoffs-2027.md"], guessed()]) {
      const answer = await shape(call(id), id);
      expect(answer).toEqual(absent);
      expect(answer.body).not.toContain("board");
    }
    expect(await store.getDocument(ids["layoffs-2027.md"])).not.toBeNull();
  });

  it("a readable document is still answered (and a reader may not change it: 403)", async () => {
    const id = ids["leave.md"];
    expect((await asReader(getDocument, "GET", `/api/documents/${id}`, { id })).status).toBe(200);
    expect((await asReader(deleteDocument, "DELETE", `/api/documents/${id}`, { id })).status).toBe(403);
  });
});

describe("a conversation's picked documents", () => {
  const missing = "0123456789abcdef01234567";
  type Saved = { conversation: { id: string; documents: string[] }; removedDocuments?: number };

  it("keep none the caller may not read, whether it posts or patches them", async () => {
    const picks = [ids["leave.md"], ids["layoffs-2027.md"], missing];
    const created = await asReader(createConversation, "POST", "/api/conversations", {}, { documents: picks });
    expect(created.status).toBe(201);
    const { conversation } = (await created.json()) as Saved;
    expect(conversation.documents).toEqual([ids["leave.md"]]);
    const { id } = conversation;
    const patched = await asReader(patchConversation, "PATCH", `/api/conversations/${id}`, { id }, { documents: [...picks].reverse() });
    expect(((await patched.json()) as Saved).conversation.documents).toEqual([ids["leave.md"]]);
    expect((await (await getConversations(store)).get(id))?.documents).toEqual([ids["leave.md"]]);
  });

  it("saved before the caller lost access: dropped and counted alike with deleted ones", async () => {
    const created = await asReader(createConversation, "POST", "/api/conversations", {}, { title: "Saved" });
    const { id } = ((await created.json()) as Saved).conversation;
    // As stored while the reader could still read "board", of a document deleted since.
    await (await getConversations(store)).update(id, { documents: [ids["layoffs-2027.md"], ids["leave.md"], missing] });
    const got = (await (await asReader(getConversation, "GET", `/api/conversations/${id}`, { id })).json()) as Saved;
    expect(got.conversation.documents).toEqual([ids["leave.md"]]);
    expect(got.removedDocuments).toBe(2);
  });
});

describe("a FAQ entry the caller may not read", () => {
  const missing = "0123456789abcdef01234567";
  const routes: [string, (id: string) => Promise<Response>][] = [
    ["GET /api/faqs/<id>", (id) => asReader(getFaq, "GET", `/api/faqs/${id}`, { id })],
    ["PATCH /api/faqs/<id>", (id) => asReader(patchFaq, "PATCH", `/api/faqs/${id}`, { id }, { answer: "Changed." })],
    ["DELETE /api/faqs/<id>", (id) => asReader(deleteFaq, "DELETE", `/api/faqs/${id}`, { id })],
  ];

  it.each(routes)("%s answers as for one that does not exist", async (_, call) => {
    const faq = await addFaq(store, { kb: "board", question: "Who is laid off in 2027?", answer: "Nobody yet." });
    const absent = await shape(call(missing), missing);
    expect(absent.status).toBe(404);
    const answer = await shape(call(faq.id), faq.id);
    expect(answer).toEqual(absent);
    expect(answer.body).not.toContain("board");
  });
});
