/**
 * Offline follow-up suggestions end to end: a real store, the app's MCP endpoint on loopback, runChat with the
 * offline answerer. Each suggestion, asked in turn, must retrieve and cite the passage it was built from.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOfflineEmbedder } from "@/lib/embed";
import { ingestDocument } from "@/lib/ingest";
import { openStore, type Store } from "@/lib/store";
import { hasCjk } from "@/lib/text/cjk";
import { askChat, serveMcp } from "@/scripts/eval-chat/harness";
import type { LocalMcp } from "@/scripts/local-mcp";
import type { Citation } from "./citations";
import { citedNumbers } from "./citations";
import { isRefusal } from "./offline-model";
import type { FollowUp } from "./protocol";

const HANDBOOK = `# Employee Handbook

## Annual leave

Full-time employees receive 20 days of annual leave per year. Requests go to your manager two weeks ahead.

## Sick leave

Sick leave of more than three days requires a doctor's certificate from a registered physician.

## Parental leave

New parents receive 16 weeks of paid parental leave, taken within the first year after the birth or adoption.

## Remote work

Employees may work from home up to three days a week with their manager's agreement.
`;
const ZH = `# 员工手册

## 年假

全职员工每年享有二十天带薪年假，需提前两周向主管申请。

## 病假

病假超过三天需要提供医院出具的诊断证明。

## 报销

差旅报销需在出差结束后三十天内提交发票原件，由财务部审核后发放。
`;

let dir: string;
let store: Store;
let mcp: LocalMcp;
const enc = new TextEncoder();

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "follow-ups-"));
  store = await openStore({ uri: dir, embedder: createOfflineEmbedder(256) });
  await ingestDocument(store, { filename: "handbook.md", kb: "default", data: enc.encode(HANDBOOK) });
  await ingestDocument(store, { filename: "shouce.md", kb: "default", data: enc.encode(ZH) });
  mcp = await serveMcp(store);
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

function followUpsOf(events: Record<string, unknown>[]): FollowUp[] {
  const part = events.filter((e) => e.type === "data-followups").at(-1) as { data?: { questions?: FollowUp[] } } | undefined;
  return part?.data?.questions ?? [];
}

function citationsOf(events: Record<string, unknown>[]): Citation[] {
  return ((events.filter((e) => e.type === "data-citations").at(-1)?.data as { citations?: Citation[] } | undefined)?.citations ??
    []) as Citation[];
}

/** Asks the suggestion and says whether the answer cites the passage it came from. */
async function answersFromItsPassage(s: FollowUp): Promise<boolean> {
  const turn = await askChat(mcp.url, [{ role: "user", content: s.question }]);
  if (isRefusal(turn.text)) return false;
  const cited = new Set(citedNumbers(turn.text));
  return citationsOf(turn.events).some((c) => c.chunk_id === s.from && cited.has(c.n));
}

describe("offline follow-up suggestions", () => {
  it("suggests two or three questions after an English answer, each answered from the passage it came from", async () => {
    const question = "How many days of annual leave do full-time employees get?";
    const turn = await askChat(mcp.url, [{ role: "user", content: question }]);
    const suggestions = followUpsOf(turn.events);
    expect(suggestions.length).toBeGreaterThanOrEqual(2);
    expect(suggestions.length).toBeLessThanOrEqual(3);
    // After the answer text, before the message ends.
    const types = turn.events.map((e) => e.type);
    expect(types.indexOf("data-followups")).toBeGreaterThan(types.lastIndexOf("text-delta"));
    expect(types.indexOf("data-followups")).toBeLessThan(types.indexOf("finish"));
    for (const s of suggestions) {
      expect(hasCjk(s.question)).toBe(false);
      expect(s.question.toLowerCase()).not.toBe(question.toLowerCase());
      expect(s.from).toBeTruthy();
      expect(await answersFromItsPassage(s), s.question).toBe(true);
    }
  }, 120_000);

  it("suggests Chinese questions after a Chinese question", async () => {
    const turn = await askChat(mcp.url, [{ role: "user", content: "年假有多少天？" }]);
    const suggestions = followUpsOf(turn.events);
    expect(suggestions.length).toBeGreaterThanOrEqual(2);
    for (const s of suggestions) {
      expect(hasCjk(s.question), s.question).toBe(true);
      expect(await answersFromItsPassage(s), s.question).toBe(true);
    }
  }, 120_000);
});
