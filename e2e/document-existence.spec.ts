/**
 * Existence does not leak (issue #59): in an app that asks everyone to sign in, a reader of one knowledge base
 * asking for a document of another — by its real id, or an id computed from a guessed file name as
 * sha256(kb + NUL + name) — gets exactly the answer of a document that does not exist, from the API and on the
 * document page; a conversation keeps none of those ids among its picked documents.
 */

import { createHash } from "node:crypto";
import type { Page } from "@playwright/test";
import { expect, PORT_BASE, test } from "./helpers/servers";
import { startTeamServer, type TeamServer } from "./helpers/team-server";

const MISSING = "0123456789abcdef01234567";
const SECRET_NAME = "layoffs-2027.md";

test.describe.configure({ mode: "serial", timeout: 240_000 });

let team: TeamServer;
const ids: Record<string, string> = {};

async function upload(kb: string, name: string, text: string): Promise<string> {
  const form = new FormData();
  form.append("kb", kb);
  form.append("files", new File([text], name));
  const res = await team.admin("POST", "/api/documents", form);
  expect(res.status, await res.clone().text()).toBe(200);
  const { results } = (await res.json()) as { results: { documentId?: string }[] };
  expect(results[0].documentId).toBeTruthy();
  return results[0].documentId!;
}

/** Status and body of the reader's GET, with `id` written as <id>, so answers about two ids compare. */
async function answerFor(page: Page, id: string) {
  const res = await page.request.get(`${team.server.base}/api/documents/${id}`);
  return { status: res.status(), body: (await res.text()).replaceAll(id, "<id>") };
}

test.beforeAll(async () => {
  team = await startTeamServer(PORT_BASE + 77, "existence");
  for (const name of ["handbook", "board"]) expect((await team.admin("POST", "/api/kbs", { name, title: name })).status).toBe(201);
  ids.leave = await upload("handbook", "leave.md", "# Leave\n\nTwenty days of annual leave.\n");
  ids.secret = await upload("board", SECRET_NAME, "# Layoffs\n\nThe board's plan for 2027.\n");
  await team.inviteReader("reader", ["handbook"]);
});

test.afterAll(async () => {
  await team?.server.stop();
});

test("a reader learns nothing of a document it may not read, not even that it exists", async ({ browser }) => {
  const reader = await team.join(browser, "reader", "en-US");
  const guessed = createHash("sha256").update(`board\u0000${SECRET_NAME}`).digest("hex").slice(0, 24);
  // Ids are keyed: the name alone does not give the id.
  expect(guessed).not.toBe(ids.secret);

  const absent = await answerFor(reader, MISSING);
  expect(absent.status).toBe(404);
  for (const id of [ids.secret, guessed]) {
    const answer = await answerFor(reader, id);
    expect(answer).toEqual(absent);
    expect(answer.body).not.toContain("board");
  }
  expect((await answerFor(reader, ids.leave)).status).toBe(200);

  // The document page says the same for both.
  const alertOf = async (id: string) => {
    await reader.goto(`${team.server.base}/documents/${id}`);
    const alert = reader.locator(`p[role="alert"]`);
    await expect(alert).toBeVisible();
    return alert.innerText();
  };
  expect(await alertOf(ids.secret)).toBe(await alertOf(MISSING));

  // A conversation keeps only the picked documents the reader may read.
  const csrf = (await reader.context().cookies()).find((c) => c.name === "kb_csrf")!.value;
  const created = await reader.request.post(`${team.server.base}/api/conversations`, {
    headers: { "x-csrf-token": csrf },
    data: { documents: [ids.secret, ids.leave, MISSING] },
  });
  expect(created.status()).toBe(201);
  const { conversation } = (await created.json()) as { conversation: { id: string; documents: string[] } };
  expect(conversation.documents).toEqual([ids.leave]);
  const saved = await reader.request.get(`${team.server.base}/api/conversations/${conversation.id}`);
  expect(((await saved.json()) as { conversation: { documents: string[] } }).conversation.documents).toEqual([ids.leave]);
});
