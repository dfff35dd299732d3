/**
 * Issue #43 points 10 and 11, through the chat's real path (LanceDB in a temp dir, the app's MCP endpoint
 * over loopback HTTP, runChat): a CSV answer takes its values from the row the question names; a question
 * naming an entity that no retrieved passage has, while they name others of its kind, is refused in its
 * language; a follow-up the documents do not answer is refused rather than answered with the previous quote.
 */
import type { ModelMessage } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestDocument } from "@/lib/ingest";
import { openTempStore, type TempStore } from "@/lib/store/temp-store";
import { askChat, serveMcp } from "@/scripts/eval-chat/harness";
import { OFFLINE_TEXT } from "./offline-model";
import type { CitationCheck } from "./support";

const OFFICES = `office,city,phone,opening hours
Berlin HQ,Berlin,+49 30 1234567,Mon–Fri 8:00–17:00
Shanghai office,Shanghai,+86 21 5555 0000,Mon–Fri 9:00–18:00
Austin office,Austin,+1 512 555 0100,Mon–Thu 8:30–16:30
`;

// Made up for this test, in the style of a news item about a railway.
const RAILWAY = `# 中老铁路运营情况

中老铁路是一条连接中国昆明与老挝万象的电气化铁路，线路全长1035公里，设计时速160公里。

这条铁路于2021年12月正式开通运营，沿线设有多个客运车站，开通以来客流和货运量持续增长。
`;

// A leave policy that says nothing about part-time staff.
const LEAVE = `# Leave policy

## Annual leave

Full-time employees receive 25 days of paid annual leave per calendar year. Unused days may be carried over until March.

## Sick leave

Sick leave of more than three days needs a doctor's note.
`;

let temp: TempStore;
let mcp: Awaited<ReturnType<typeof serveMcp>>;

beforeAll(async () => {
  temp = await openTempStore("answer-records-test-");
  const docs: [string, string][] = [
    ["offices.csv", OFFICES],
    ["railway.md", RAILWAY],
    ["leave.md", LEAVE],
  ];
  for (const [filename, text] of docs) await ingestDocument(temp.store, { filename, kb: "default", data: new TextEncoder().encode(text) });
  mcp = await serveMcp(temp.store);
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await temp?.close();
});

const ask = (messages: ModelMessage[] | string) => askChat(mcp.url, messages);

const checkOf = (events: Record<string, unknown>[]) =>
  events.filter((e) => e.type === "data-check").at(-1)?.data as CitationCheck | undefined;

describe("a CSV answer states one row (issue #43, point 10)", () => {
  it("'What is the phone number of the Shanghai office?' quotes Shanghai's row whole, and no other row", async () => {
    const { text, events, errors } = await ask("What is the phone number of the Shanghai office?");
    expect(errors).toEqual([]);
    expect(text).toMatch(/office: Shanghai office · city: Shanghai · phone: \+86 21 5555 0000 · opening hours: Mon–Fri 9:00–18:00 \[\d+\]/);
    expect(text).not.toMatch(/1234567|555 0100|Berlin|Austin/);
    // The citation check finds the quoted row in its source: supported, not moved or flagged.
    const check = checkOf(events);
    const sentence = check?.sentences.find((s) => s.text.includes("Shanghai"));
    expect(sentence?.unsupported).toBeUndefined();
    expect(sentence?.citations[0].support).toBeGreaterThanOrEqual(0.8);
  });

  it("another column of another row: the Austin office's opening hours", async () => {
    const { text } = await ask("What are the opening hours of the Austin office?");
    expect(text).toContain("opening hours: Mon–Thu 8:30–16:30");
    expect(text).not.toMatch(/9:00–18:00|8:00–17:00/);
  });
});

describe("a question about an entity the documents do not name is refused (issue #43, point 11)", () => {
  it("广茂铁路全长多少公里？ is refused in Chinese, not answered with 中老铁路's length", async () => {
    const answered = await ask("中老铁路全长多少公里？");
    expect(answered.text).toMatch(/1035公里[^\n]*\[\d+\]/);
    const { text, errors } = await ask("广茂铁路全长多少公里？");
    expect(errors).toEqual([]);
    expect(text).toBe(OFFLINE_TEXT.zh.notFound);
  });

  it("'What is the phone number of the Paris office?' is refused, not answered with another office's row", async () => {
    expect((await ask("What is the phone number of the Paris office?")).text).toBe(OFFLINE_TEXT.en.notFound);
  });

  it("'and for part-time staff?' after an annual-leave answer is refused when the documents say nothing about part-time staff", async () => {
    const previous = "How many days of annual leave do full-time employees get?";
    const first = await ask(previous);
    expect(first.text).toMatch(/25 days of paid annual leave/);
    const { text, errors } = await ask([
      { role: "user", content: previous },
      { role: "assistant", content: first.text },
      { role: "user", content: "and for part-time staff?" },
    ]);
    expect(errors).toEqual([]);
    expect(text).toBe(OFFLINE_TEXT.en.notFound);
  });
});
