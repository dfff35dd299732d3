/**
 * Offline follow-up suggestions end to end: a real store, the app's MCP endpoint on loopback, runChat with the
 * offline answerer. Each suggestion, asked in turn, must retrieve and cite the passage it was built from.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handbooks, ingestMarkdown } from "@/lib/ingest/test-kbs";
import { openTempStore, type TempStore } from "@/lib/store/temp-store";
import { hasCjk } from "@/lib/text/cjk";
import { askChat, serveMcp } from "@/scripts/eval-chat/harness";
import type { LocalMcp } from "@/scripts/local-mcp";
import type { Citation } from "./citations";
import { citedNumbers } from "./citations";
import { isRefusal } from "./offline-model";
import type { FollowUp } from "./protocol";

let temp: TempStore;
let mcp: LocalMcp;

beforeAll(async () => {
  temp = await openTempStore("follow-ups-");
  await ingestMarkdown(temp.store, "default", handbooks());
  mcp = await serveMcp(temp.store);
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await temp?.close();
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
