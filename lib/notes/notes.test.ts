/**
 * Notes over a real store: an answer kept as a note (the server's recorded copy, its checked text and the passages
 * it cites), listed per knowledge base, renamed, deleted; seen by its author alone, and only while they may read
 * its knowledge bases; a study guide written by a (scripted) model, cited and put through the answers' citation
 * check; offline, refused with the reason.
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkCitations } from "@/lib/agent/support";
import { TEST_USAGE } from "@/lib/agent/test-model";
import type { Principal } from "@/lib/auth/principal";
import { getAnswers } from "@/lib/conversations/answers";
import { HR_KB, ingestMarkdown, openTestKbs } from "@/lib/ingest/test-kbs";
import { OFFLINE_CHAT } from "@/scripts/eval-chat/harness";
import { noteFor, notesOf } from "./access";
import { makeNote, NEEDS_MODEL } from "./make";
import { saveAnswerAsNote } from "./save";
import { getNotes } from "./store";

type Kbs = Awaited<ReturnType<typeof openTestKbs>>;
let temp: Kbs;

const reader = (id: string, kbs: string[]) =>
  ({ kind: "user", user: { id, email: `${id}@x`, name: id, role: "reader", kbs }, session: {}, caller: {} }) as unknown as Principal;
const alice = reader("alice", ["hr", "sales"]);
const bob = reader("bob", ["hr", "sales"]);

const FINANCE = {
  name: "sales",
  title: "Sales",
  description: "Prices",
  documents: { "prices.md": "# Prices\n\n## Plans\n\nThe Pro plan costs 8 dollars per user per month.\n" },
};

beforeAll(async () => {
  temp = await openTestKbs("notes-", [HR_KB, FINANCE]);
}, 60_000);
afterAll(async () => {
  await temp?.close();
});

/** An answer of `owner` as the chat records it while streaming: its text, citations and citation check. */
async function recordAnswer(id: string, owner: string, text: string, question?: string) {
  const citation = (n: number, kb: string, chunk: string, body: string) => ({
    n,
    chunk_id: chunk,
    kb,
    heading: "Per diem",
    text: body,
    score: 1,
    document: { id: `${kb}-doc`, title: kb, source: `${kb}.md` },
  });
  const citations = [
    citation(1, "hr", "c-hr", "The per diem for overnight travel is 80 euros per day."),
    citation(2, "sales", "c-sales", "The Pro plan costs 8 dollars per user per month."),
  ];
  const check = checkCitations(text, citations);
  const recorder = (await getAnswers(temp.store)).begin(id, owner, question);
  await recorder.record(
    {
      id,
      role: "assistant",
      metadata: { mode: "llm", model: "fake-model" },
      parts: [
        { type: "text", text },
        { type: "data-citations", data: { citations } },
        { type: "data-check", data: check },
      ],
    },
    ["hr", "sales"],
  );
  return check;
}

describe("an answer kept as a note", () => {
  it("keeps the checked text and the cited passages, listed under their knowledge base, for its author alone", async () => {
    // The sentence cites the sales passage, but the hr one supports it: the check re-cites it to [1].
    const check = await recordAnswer("a1", "alice", "The per diem for overnight travel is 80 euros per day [2].");
    expect(check.text).toContain("[1]");
    const note = await saveAnswerAsNote(alice, temp.store, { messageId: "a1" });
    expect(note.kind).toBe("answer");
    expect(note.text).toBe(check.text);
    expect(note.citations.map((c) => c.chunk_id)).toEqual(["c-hr"]);
    expect(note.kbs).toEqual(["hr"]);
    expect(note.model).toBe("fake-model");

    expect((await notesOf(alice, temp.store, "hr")).map((n) => n.id)).toContain(note.id);
    expect((await notesOf(alice, temp.store, "sales")).map((n) => n.id)).not.toContain(note.id);
    // Another reader of the same knowledge base neither lists nor opens it.
    expect(await notesOf(bob, temp.store)).toEqual([]);
    await expect(noteFor(bob, temp.store, note.id)).rejects.toMatchObject({ status: 404 });
    // Nor can bob keep alice's answer as a note of his own.
    await expect(saveAnswerAsNote(bob, temp.store, { messageId: "a1" })).rejects.toMatchObject({ status: 404 });
    // Once alice may no longer read hr, the note is gone for her too (the same 404).
    const withoutHr = reader("alice", ["sales"]);
    await expect(noteFor(withoutHr, temp.store, note.id)).rejects.toMatchObject({ status: 404 });
    expect(await notesOf(withoutHr, temp.store)).toEqual([]);

    const notes = await getNotes(temp.store);
    expect((await notes.rename(note.id, "Per diem")).title).toBe("Per diem");
    expect((await noteFor(alice, temp.store, note.id)).title).toBe("Per diem");
    expect(await notes.delete(note.id)).toBe(true);
    await expect(noteFor(alice, temp.store, note.id)).rejects.toMatchObject({ status: 404 });
  });

  it("is titled with its question when kept before its conversation is saved", async () => {
    await recordAnswer("a3", "alice", "The per diem for overnight travel is 80 euros per day [1].", "What is the per diem?");
    const note = await saveAnswerAsNote(alice, temp.store, { messageId: "a3" });
    expect(note.title).toBe("What is the per diem?");
    expect(note.question).toBe("What is the per diem?");
    await (await getNotes(temp.store)).delete(note.id);
  });

  it("refuses an answer that cites nothing, keeping nothing", async () => {
    await recordAnswer("a2", "alice", "The knowledge base does not contain an answer to this question.");
    const before = (await notesOf(alice, temp.store)).length;
    await expect(saveAnswerAsNote(alice, temp.store, { messageId: "a2" })).rejects.toMatchObject({ status: 400 });
    await expect(saveAnswerAsNote(alice, temp.store, { messageId: "nope" })).rejects.toMatchObject({ status: 404 });
    expect(await notesOf(alice, temp.store)).toHaveLength(before);
  });
});

/** A model that answers every generateText call with `text`; `asked`: the prompts it got. */
function writingModel(text: string, asked: string[]): LanguageModelV4 {
  return {
    specificationVersion: "v4",
    provider: "test",
    modelId: "writer",
    supportedUrls: {},
    async doGenerate(o) {
      asked.push(JSON.stringify(o.prompt));
      return { content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage: TEST_USAGE, warnings: [] };
    },
    doStream: () => Promise.reject(new Error("generate only")),
  };
}

describe("study guide, briefing, timeline", () => {
  it("are written from the knowledge base's passages, cited, and checked like answers", async () => {
    const asked: string[] = [];
    const text =
      "- The per diem for overnight travel is 80 euros per day [1].\n- Interns receive 45 days of leave on Mars [1].\n- Flights are free [9].";
    const note = await makeNote(
      alice,
      temp.store,
      { kind: "study-guide", kb: "hr", documents: [], locale: "en" },
      OFFLINE_CHAT,
      writingModel(text, asked),
    );
    expect(asked[0]).toContain("study guide");
    expect(asked[0]).toContain("80 euros");
    expect(note.kind).toBe("study-guide");
    expect(note.title).toMatch(/^Study guide · /);
    expect(note.kbs).toEqual(["hr"]);
    expect(note.citations.map((c) => c.kb)).toEqual(["hr"]);
    // The marker to a passage it was not given is gone; the invented sentence is marked unsupported.
    expect(note.text).not.toContain("[9]");
    const unsupported = note.check?.sentences.filter((s) => s.unsupported).map((s) => s.text) ?? [];
    expect(unsupported.some((s) => s.includes("Mars"))).toBe(true);
    expect(unsupported.some((s) => s.includes("80 euros"))).toBe(false);
    expect((await noteFor(alice, temp.store, note.id)).check).toEqual(note.check);
    // Only from a knowledge base the caller reads.
    await expect(
      makeNote(
        reader("carol", ["sales"]),
        temp.store,
        { kind: "briefing", kb: "hr", documents: [], locale: "en" },
        OFFLINE_CHAT,
        writingModel(text, []),
      ),
    ).rejects.toMatchObject({ status: 403 });
  });

  it("are made from the selected documents alone, by the one scope rule; a pick of another knowledge base is not used", async () => {
    await ingestMarkdown(temp.store, "hr", {
      "leave.md": "# Leave\n\n## Annual leave\n\nFull-time staff get 25 days of annual leave a year.\n",
    });
    const leave = (await temp.store.findDocument("hr", { source: "leave.md" }))!;
    const prices = (await temp.store.findDocument("sales", { source: "prices.md" }))!;
    const asked: string[] = [];
    const note = await makeNote(
      alice,
      temp.store,
      { kind: "briefing", kb: "hr", documents: [leave.id, prices.id], locale: "en" },
      OFFLINE_CHAT,
      writingModel("- Full-time staff get 25 days of annual leave a year [1].", asked),
    );
    // The ticked document's passages, not the knowledge base's other document, not the other knowledge base's.
    expect(asked[0]).toContain("25 days");
    expect(asked[0]).not.toContain("80 euros");
    expect(asked[0]).not.toContain("8 dollars");
    expect(note.title).toBe("Briefing · Leave");
    expect(note.citations.map((c) => c.document.id)).toEqual([leave.id]);
    // Every pick outside the knowledge base: refused, saying so (not "no documents").
    await expect(
      makeNote(
        alice,
        temp.store,
        { kind: "briefing", kb: "hr", documents: [prices.id], locale: "en" },
        OFFLINE_CHAT,
        writingModel("unused", []),
      ),
    ).rejects.toMatchObject({ status: 400, message: 'None of the selected documents is in the knowledge base "hr".' });
  });

  it("offline, are refused with the reason and keep nothing", async () => {
    const before = (await notesOf(alice, temp.store)).length;
    await expect(
      makeNote(alice, temp.store, { kind: "timeline", kb: "hr", documents: [], locale: "en" }, OFFLINE_CHAT),
    ).rejects.toMatchObject({
      status: 409,
      message: NEEDS_MODEL,
    });
    expect(await notesOf(alice, temp.store)).toHaveLength(before);
  });
});
