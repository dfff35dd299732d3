/** Hooks for specs that drive the app running on the fake OpenAI-compatible model. */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { test } from "@playwright/test";
import { PORTS } from "../../playwright.config";
import type { RecordedRequest } from "../fixtures/fake-openai";
import { connectMcp, mcpUrl } from "./mcp";

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
 * `followUps` also the follow-up suggestion request each answer ends with.
 */
export async function fakeRequests({ followUps = false } = {}): Promise<RecordedRequest[]> {
  const all = (await (await fetch(`${FAKE_MODEL}/requests`)).json()) as RecordedRequest[];
  return followUps ? all : all.filter((r) => !r.system.startsWith("You suggest follow-up questions"));
}
