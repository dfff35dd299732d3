/** Hooks for specs that drive the app running on the fake OpenAI-compatible model. */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RecordedRequest } from "../fixtures/fake-openai";
import { connectMcp, mcpUrl } from "./mcp";
import { PORTS, test } from "./servers";

const FAKE_MODEL = `http://127.0.0.1:${PORTS.fakeLlm}`;

/** An MCP client on that app for the whole spec, and the fake's recorded requests cleared before each test. */
export function withFakeModelApp(): { mcp: () => Client } {
  let mcp: Client;
  test.beforeAll(async () => {
    mcp = await connectMcp(mcpUrl(PORTS.llm));
  });
  test.afterAll(async () => {
    await mcp?.close();
  });
  test.beforeEach(async () => {
    await fetch(`${FAKE_MODEL}/reset`, { method: "POST" });
  });
  return { mcp: () => mcp };
}

/**
 * What the fake model received since the last reset: the requests that answer the question, and with
 * `followUps` also the follow-up suggestion request each answer ends with; `overviews` only the overview requests
 * the empty chat and document pages make (never part of an answer).
 */
export async function fakeRequests({ followUps = false, overviews = false } = {}): Promise<RecordedRequest[]> {
  const all = (await (await fetch(`${FAKE_MODEL}/requests`, { signal: AbortSignal.timeout(15_000) })).json()) as RecordedRequest[];
  const overview = (r: RecordedRequest) => r.system.startsWith("You write the overview");
  if (overviews) return all.filter(overview);
  return all.filter((r) => !overview(r) && (followUps || !r.system.startsWith("You suggest follow-up questions")));
}
