/**
 * A study guide, briefing or timeline of a knowledge base's documents (or of some of them), written by the
 * configured model from their passages, cited like an answer ([n] per passage) and put through the same citation
 * check (lib/agent/support.ts): markers to passages that were not given are dropped, a sentence another passage
 * supports is re-cited, one none supports is marked. Offline there is no such note: the API says why and the
 * notes page shows the reason instead of the actions.
 */
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { generateText } from "ai";
import { citedNumbers, sanitizeCitations } from "@/lib/agent/citations";
import { LEADING_HEADINGS } from "@/lib/agent/highlight";
import type { Citation } from "@/lib/agent/protocol";
import { checkCitations } from "@/lib/agent/support";
import { type Principal, requireKbAccess } from "@/lib/auth/principal";
import type { AppConfig } from "@/lib/config";
import type { Store } from "@/lib/store";
import { documentsInScope } from "@/lib/tools/scope";
import { AppError, type DocumentRecord } from "@/lib/types";
import { noteOwnerOf } from "./access";
import type { MadeKind, Note } from "./schema";
import { getNotes } from "./store";

const MAX_DOCS = 8;
const MAX_PASSAGES = 12;
const PASSAGE_CHARS = 900;
const MAKE_TIMEOUT_MS = 60_000;

export const NEEDS_MODEL =
  "Study guides, briefings and timelines are written by a language model, and none is configured (the app runs offline).";

const TASK: Record<MadeKind, string> = {
  "study-guide":
    "Write a study guide: the key ideas as short Markdown bullet points grouped under headings, then three review questions, each followed by its answer.",
  briefing: "Write a briefing document: a one-paragraph summary, then the main points as Markdown bullet points.",
  timeline:
    "Write a timeline: one Markdown bullet per dated event or deadline, in date order, each starting with its date. Leave out what has no date.",
};

const LABEL: Record<MadeKind, { en: string; zh: string }> = {
  "study-guide": { en: "Study guide", zh: "学习指南" },
  briefing: { en: "Briefing", zh: "简报" },
  timeline: { en: "Timeline", zh: "时间线" },
};

const instructions = (kind: MadeKind, lang: "en" | "zh") =>
  `You write from the numbered passages below, and only from them. ${TASK[kind]}
Cite the passage each sentence or bullet comes from with its number in square brackets, like [2]. Do not add anything the passages do not say.
Write in ${lang === "zh" ? "Chinese" : "English"}.`;

/**
 * The documents the note is made from: the selected ones (the notes page's Scope picker, which starts from the
 * conversation's) within the knowledge base, by the one scope rule (lib/tools/scope.ts); none selected: the
 * knowledge base's.
 */
async function sourcesOf(p: Principal, store: Store, kb: string, ids: readonly string[]): Promise<DocumentRecord[]> {
  requireKbAccess(p, kb, false);
  const docs = documentsInScope(await store.listDocuments({ kb }), { kbs: [kb], documents: ids });
  if (!docs.length)
    throw new AppError(
      "bad_request",
      ids.length
        ? `None of the selected documents is in the knowledge base "${kb}".`
        : `The knowledge base "${kb}" has no documents to make this from.`,
    );
  return docs.slice(0, MAX_DOCS);
}

/** Passages of the documents, taken in turn from each (their first ones first), numbered from 1. */
async function passagesOf(store: Store, docs: readonly DocumentRecord[]): Promise<Citation[]> {
  const perDoc = await Promise.all(docs.map(async (d) => ({ d, chunks: (await store.getChunks(d.id)).sort((a, b) => a.index - b.index) })));
  const out: Citation[] = [];
  for (let round = 0; out.length < MAX_PASSAGES && perDoc.some((x) => x.chunks.length > round); round++) {
    for (const { d, chunks } of perDoc) {
      const c = chunks[round];
      if (!c || out.length >= MAX_PASSAGES) continue;
      out.push({
        n: out.length + 1,
        chunk_id: c.id,
        document: { id: d.id, title: d.title, source: d.source },
        kb: d.kb,
        heading: c.heading,
        text: c.text.replace(LEADING_HEADINGS, "").trim().slice(0, PASSAGE_CHARS),
        score: 1,
        ...(c.page ? { page: c.page } : {}),
      });
    }
  }
  return out;
}

/** Makes the note and keeps it for the caller; `model` stands in for the configured one (tests). */
export async function makeNote(
  p: Principal,
  store: Store,
  input: { kind: MadeKind; kb: string; documents: readonly string[]; locale: "en" | "zh" },
  chat: AppConfig["chat"],
  model?: LanguageModelV4,
): Promise<Note> {
  const writer = model ?? (chat.apiKey ? createOpenAI({ apiKey: chat.apiKey, baseURL: chat.baseURL }).chat(chat.model) : null);
  if (!writer) throw new AppError("conflict", NEEDS_MODEL);
  const docs = await sourcesOf(p, store, input.kb, input.documents);
  const passages = await passagesOf(store, docs);
  const known = new Map(passages.map((c) => [c.n, c]));
  let written: string;
  try {
    ({ text: written } = await generateText({
      model: writer,
      instructions: instructions(input.kind, input.locale),
      prompt: passages.map((c) => `[${c.n}] ${c.document.title}${c.heading ? ` › ${c.heading}` : ""}\n${c.text}`).join("\n\n"),
      maxOutputTokens: 1500,
      maxRetries: 1,
      abortSignal: AbortSignal.timeout(MAKE_TIMEOUT_MS),
    }));
  } catch (err) {
    throw new AppError("upstream", `The model could not write it: ${err instanceof Error ? err.message : String(err)}`);
  }
  // The same check as an answer's: only passages given, each sentence against the passage it cites.
  const check = checkCitations(sanitizeCitations(written, (n) => known.has(n)).text, passages);
  const cited = new Set(citedNumbers(check.text));
  const citations = passages.filter((c) => cited.has(c.n));
  if (!citations.length) throw new AppError("upstream", "The model's text cites none of the passages, so it was not kept.");
  const label = LABEL[input.kind][input.locale];
  const { owner: _, ...note } = await (await getNotes(store)).add(noteOwnerOf(p), {
    kind: input.kind,
    title: `${label} · ${docs.length === 1 ? docs[0].title : input.kb}`,
    kbs: [...new Set(citations.map((c) => c.kb))],
    text: check.text,
    check,
    citations,
    model: model?.modelId ?? chat.model,
  });
  return note;
}
