/**
 * Extracted overviews over a real store: the opening, the sections, and questions that search finds their
 * passage for, in the UI language; cached until a document changes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handbooks, ingestMarkdown } from "@/lib/ingest/test-kbs";
import { searchKnowledge } from "@/lib/retrieve";
import type { Store } from "@/lib/store";
import { openTempStore, type TempStore } from "@/lib/store/temp-store";
import { hasCjk } from "@/lib/text/cjk";
import { overviewOf } from "./overview";

const HANDBOOKS = handbooks({
  en: "This handbook describes the leave, expenses and remote work rules for all employees of Acme.",
  zh: "本手册说明公司员工的请假、报销与考勤规定。",
});

let temp: TempStore;
let store: Store;
const offline = { apiKey: "", model: "offline", baseURL: undefined } as unknown as Parameters<typeof overviewOf>[3];

beforeAll(async () => {
  temp = await openTempStore("overview-");
  store = temp.store;
  await ingestMarkdown(store, "default", HANDBOOKS);
}, 60_000);

afterAll(async () => {
  await temp?.close();
});

const doc = async (source: string) => (await store.listDocuments()).find((d) => d.source === source)!;

/** Each question, searched, returns a passage of the documents among the first two. */
async function answerable(questions: string[], ids: string[]) {
  for (const q of questions) {
    const hits = await searchKnowledge(store, { query: q, topK: 2 });
    expect(
      hits.some((h) => ids.includes(h.document.id)),
      q,
    ).toBe(true);
  }
}

describe("extracted overview", () => {
  it("sums up an English document: its opening, its sections, 3–5 questions it answers", async () => {
    const d = await doc("handbook.md");
    const o = await overviewOf(store, [d], "en", offline);
    expect(o.kind).toBe("extracted");
    expect(o.covers).toMatch(/^This handbook describes the leave/);
    expect(o.sections).toEqual(["Annual leave", "Sick leave", "Parental leave", "Remote work"]);
    expect(o.questions.length).toBeGreaterThanOrEqual(3);
    expect(o.questions.length).toBeLessThanOrEqual(5);
    expect(o.questions.every((q) => !hasCjk(q))).toBe(true);
    // A title line and the next paragraph's first word are no name.
    expect(o.questions.join("\n")).not.toMatch(/Handbook This/);
    await answerable(o.questions, [d.id]);
  });

  it("sums up a Chinese document in Chinese, with no English template", async () => {
    const d = await doc("shouce.md");
    const o = await overviewOf(store, [d], "zh", offline);
    expect(o.covers).toMatch(/^本手册说明/);
    expect(o.sections).toEqual(["年假", "病假", "报销"]);
    expect(o.questions.length).toBeGreaterThanOrEqual(3);
    expect(o.questions.every((q) => hasCjk(q) && !/Tell me|What does/.test(q))).toBe(true);
    await answerable(o.questions, [d.id]);
  });

  it("asks about an English library in Chinese in the Chinese UI, and names its documents", async () => {
    const docs = await store.listDocuments();
    const o = await overviewOf(store, docs, "zh", offline);
    expect(o.covers).toMatch(/^共 2 篇文档：/);
    expect(o.sections.sort()).toEqual(["Employee Handbook", "员工手册"].sort());
    expect(o.questions.length).toBeGreaterThanOrEqual(3);
    expect(o.questions.every((q) => hasCjk(q) && !/Tell me|What does/.test(q))).toBe(true);
  });

  it("in the Chinese UI asks first about the Chinese documents of a mostly English library", async () => {
    const memos: Record<string, string> = {};
    for (const [i, city] of [
      "Ashgrove",
      "Brightwater",
      "Calder",
      "Dunmore",
      "Eastfield",
      "Fairhaven",
      "Glenrock",
      "Harlow",
      "Ivybridge",
      "Jarrow",
    ].entries()) {
      memos[`memo-${i}.md`] = `# Depot memo ${city}\n\n## Opening hours\n\nThe ${city} depot opens at ${6 + (i % 3)} am on weekdays.`;
    }
    await ingestMarkdown(store, "mixed", { ...memos, "shouce.md": HANDBOOKS["shouce.md"] });
    const docs = (await store.listDocuments()).filter((d) => d.kb === "mixed");
    const chinese = docs.find((d) => d.source === "shouce.md")!;
    const o = await overviewOf(store, docs, "zh", offline);
    const aboutChinese: string[] = [];
    for (const q of o.questions) {
      const [top] = await searchKnowledge(store, { query: q, topK: 1, kb: ["mixed"] });
      if (top?.document.id === chinese.id) aboutChinese.push(q);
    }
    expect(aboutChinese.length, o.questions.join(" | ")).toBeGreaterThanOrEqual(2);
  });

  it("is cached until the document changes", async () => {
    const d = await doc("handbook.md");
    const first = await overviewOf(store, [d], "en", offline);
    expect(await overviewOf(store, [d], "en", offline)).toBe(first);
    await ingestMarkdown(store, "default", {
      "handbook.md": HANDBOOKS["handbook.md"].replace("This handbook describes", "This guide explains"),
    });
    const changed = await doc("handbook.md");
    const again = await overviewOf(store, [changed], "en", offline);
    expect(again.covers).toMatch(/^This guide explains/);
  });
});
