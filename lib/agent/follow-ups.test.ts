/**
 * Offline follow-up suggestions end to end: a real store, the app's MCP endpoint on loopback, runChat with the
 * offline answerer. Each suggestion, asked in turn, must retrieve and cite the passage it was built from.
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestDocument } from "@/lib/ingest";
import { handbooks, ingestMarkdown } from "@/lib/ingest/test-kbs";
import { searchKnowledge } from "@/lib/retrieve";
import { openTempStore, type TempStore } from "@/lib/store/temp-store";
import { hasCjk } from "@/lib/text/cjk";
import { askChat, serveMcp } from "@/scripts/eval-chat/harness";
import type { LocalMcp } from "@/scripts/local-mcp";
import type { Citation } from "./citations";
import { citedNumbers } from "./citations";
import { modelFollowUps } from "./follow-ups";
import { isRefusal } from "./offline-model";
import type { FollowUp } from "./protocol";
import { TEST_USAGE } from "./test-model";

let temp: TempStore;
let mcp: LocalMcp;

const OFFICES = "office,city,phone,manager\nParis,Paris,+33 1 23 45 67 89,Marie Dubois\nShanghai,Shanghai,+86 21 5555 0101,Li Wei\n";
const FAQ = `# Nimbus Notes FAQ

## Billing

### Can I get a refund?

Annual plans can be refunded in full within 14 days of purchase.
`;

beforeAll(async () => {
  temp = await openTempStore("follow-ups-");
  await ingestMarkdown(temp.store, "default", { ...handbooks(), "faq.md": FAQ });
  await ingestDocument(temp.store, { filename: "offices.csv", kb: "default", data: new TextEncoder().encode(OFFICES) });
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

  it("stay on the question's topic, read as a person asks, in the UI's language, and never follow a refusal", async () => {
    const citedDocs = (turn: Awaited<ReturnType<typeof askChat>>) => {
      const cited = new Set(citedNumbers(turn.text));
      return new Set(
        citationsOf(turn.events)
          .filter((c) => cited.has(c.n))
          .map((c) => c.document.id),
      );
    };
    for (const question of [
      "How many days of annual leave do full-time employees get?",
      "What is the phone number of the Shanghai office?",
    ]) {
      const turn = await askChat(mcp.url, [{ role: "user", content: question }], undefined, undefined, "en");
      const docs = citedDocs(turn);
      for (const s of followUpsOf(turn.events)) {
        // No template about a title, no row ranges, no Chinese in the English UI.
        expect(s.question, s.question).not.toMatch(/say about|\bRows? \d/);
        expect(hasCjk(s.question), s.question).toBe(false);
        // Asked, it is answered from a document the first answer cited (not the FAQ's refunds).
        const next = await askChat(mcp.url, [{ role: "user", content: s.question }], undefined, undefined, "en");
        const first = citationsOf(next.events).find((c) => c.n === citedNumbers(next.text)[0]);
        expect(first && docs.has(first.document.id), `${question} → ${s.question}`).toBe(true);
      }
    }
    // The Chinese UI gets Chinese suggestions only.
    const zh = await askChat(mcp.url, [{ role: "user", content: "年假有多少天？" }], undefined, undefined, "zh");
    for (const s of followUpsOf(zh.events)) expect(hasCjk(s.question) && !/say about/.test(s.question), s.question).toBe(true);
    // A refusal gets none, though its search retrieved passages.
    const refused = await askChat(
      mcp.url,
      [{ role: "user", content: "What is the boiling point of the Paris office's manager?" }],
      undefined,
      undefined,
      "en",
    );
    if (isRefusal(refused.text)) expect(followUpsOf(refused.events)).toEqual([]);
    const mars = await askChat(mcp.url, [{ role: "user", content: "Who runs the Mars office?" }], undefined, undefined, "en");
    expect(isRefusal(mars.text), mars.text).toBe(true);
    expect(citationsOf(mars.events).length).toBeGreaterThan(0);
    expect(followUpsOf(mars.events)).toEqual([]);
  }, 120_000);

  it("keeps a model-written suggestion only when searching it returns a passage of the documents the answer cites", async () => {
    const question = "How many days of annual leave do full-time employees get?";
    const turn = await askChat(mcp.url, question);
    const written = [
      "How far ahead do annual leave requests go to the manager?",
      "How fast does a swallow fly on Mars?",
      "How many weeks of paid parental leave do new parents get?",
    ];
    const model: LanguageModelV4 = {
      specificationVersion: "v4",
      provider: "test",
      modelId: "writer",
      supportedUrls: {},
      doGenerate: async () => ({
        content: [{ type: "text", text: written.join("\n") }],
        finishReason: { unified: "stop", raw: "stop" },
        usage: TEST_USAGE,
        warnings: [],
      }),
      doStream: () => Promise.reject(new Error("generate only")),
    };
    const search = async (query: string) =>
      (await searchKnowledge(temp.store, { query, topK: 5 })).map((h) => ({ chunk_id: h.chunk.id, document: { id: h.chunk.documentId } }));
    const kept = await modelFollowUps(model, question, turn.text, citationsOf(turn.events), search);
    expect(kept.map((k) => k.question)).toEqual([written[0], written[2]]);
    for (const k of kept) expect(k.from).toBeTruthy();
  }, 60_000);
});
