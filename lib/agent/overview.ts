/**
 * Overviews of a document or of a set of documents (the knowledge bases a person reads): what they cover, their
 * sections, and a few questions they answer. Offline the overview is extracted: the opening sentences, the
 * headings, and questions built by the follow-up machinery from one passage per section, kept only when
 * searching them returns their passage. With a model, the model writes it from the same material. Cached
 * by the documents' content hashes, so a changed, added or removed document gives a new overview.
 */
import { createHash } from "node:crypto";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { generateText } from "ai";
import { HEADING_SEPARATOR } from "@/lib/chunk/heading";
import type { AppConfig } from "@/lib/config";
import { searchKnowledge } from "@/lib/retrieve";
import type { Store } from "@/lib/store";
import { hasCjk } from "@/lib/text/cjk";
import { sentenceRanges } from "@/lib/text/sentences";
import type { ChunkRecord, DocumentRecord } from "@/lib/types";
import { answerableQuestions, type SuggestionSearch, verifiedQuestions } from "./follow-ups";
import { LEADING_HEADINGS } from "./highlight";
import type { Overview } from "./overview-contract";

type Lang = "en" | "zh";
type Doc = Pick<DocumentRecord, "id" | "title" | "source" | "kb" | "contentHash">;
interface OverviewSource {
  document: Doc;
  chunks: readonly ChunkRecord[];
}

const MAX_SECTIONS = 8;
const MAX_QUESTIONS = 5;
const MAX_PASSAGES = 10;
const COVERS_CHARS = 280;
const GENERIC = /^(introduction|overview|summary|contents|table of contents|about|abstract|references|简介|概述|目录|前言|附录|摘要)$/i;
/** CSV and sheet records are grouped under "Rows 1–10" headings: no section anyone reads by. */
const SYNTHETIC = /\brows?\s+\d+(\s*[–-]\s*\d+)?$/i;

const bodyOf = (c: ChunkRecord) => c.text.replace(LEADING_HEADINGS, "").trim();

/** The section path below the document's title ("Leave › Sick leave"), cleaned of numbering. */
function sectionPath(c: ChunkRecord, title: string): string[] {
  const parts = c.heading
    .split(HEADING_SEPARATOR)
    .map((s) =>
      s
        .trim()
        .replace(/^[\d.、)\s]+/, "")
        .replace(/[:：]$/, "")
        .trim(),
    )
    .filter(Boolean);
  if (parts[0] && parts[0].toLowerCase() === title.trim().toLowerCase()) parts.shift();
  return parts;
}

/** The document's top sections in order (the first level below its title). */
function sectionsOf(doc: OverviewSource): string[] {
  const title = doc.document.title.replace(/\.[a-z0-9]{1,5}$/i, "");
  const out: string[] = [];
  for (const c of [...doc.chunks].sort((a, b) => a.index - b.index)) {
    const top = sectionPath(c, title)[0];
    if (!top || Array.from(top).length < 2 || top.length > 80 || GENERIC.test(top) || SYNTHETIC.test(top) || out.includes(top)) continue;
    out.push(top);
  }
  return out.slice(0, MAX_SECTIONS);
}

/** The document's opening sentences, from the first passage with prose in it. */
function opening(doc: OverviewSource): string {
  const first = [...doc.chunks].sort((a, b) => a.index - b.index).find((c) => bodyOf(c).length >= 20);
  if (!first) return "";
  const text = bodyOf(first).replace(/\s+/g, " ");
  let out = "";
  for (const [s, e] of sentenceRanges(text)) {
    const next = `${out}${text.slice(s, e)}`;
    if (out && next.length > COVERS_CHARS) break;
    out = next;
  }
  return out.length > COVERS_CHARS ? `${out.slice(0, COVERS_CHARS - 1).trimEnd()}…` : out.trim();
}

/** Whether a document is written in `lang`, by its title and opening passage. */
function inLanguage(doc: OverviewSource, lang: Lang): boolean {
  const first = doc.chunks.reduce<ChunkRecord | undefined>((a, c) => (a && a.index <= c.index ? a : c), undefined);
  return hasCjk(`${doc.document.title} ${first ? bodyOf(first).slice(0, 200) : ""}`) === (lang === "zh");
}

/** A document's passages worth asking about, one per section, in order. */
function passagesOf(doc: OverviewSource): { c: ChunkRecord; d: Doc }[] {
  const seen = new Set<string>();
  return [...doc.chunks]
    .sort((a, b) => a.index - b.index)
    .filter((c) => {
      if (seen.has(c.heading) || Array.from(bodyOf(c)).length < 12) return false;
      seen.add(c.heading);
      return true;
    })
    .map((c) => ({ c, d: doc.document }));
}

/**
 * One passage per section, the documents taken in turn, as the follow-up machinery reads them. The documents in
 * the UI language are taken first, then the others: in a large library the passages run out before every document
 * is reached, and a Chinese screen would otherwise ask only about English documents.
 */
function samplePassages(docs: readonly OverviewSource[], lang: Lang) {
  const picked: { c: ChunkRecord; d: Doc }[] = [];
  const matches = docs.map((d) => inLanguage(d, lang));
  for (const group of [docs.filter((_, i) => matches[i]), docs.filter((_, i) => !matches[i])]) {
    const perDoc = group.map(passagesOf);
    for (let round = 0; picked.length < MAX_PASSAGES && perDoc.some((p) => p.length > round); round++)
      for (const p of perDoc) if (p[round] && picked.length < MAX_PASSAGES) picked.push(p[round]);
  }
  return picked.map(({ c, d }, i) => ({
    n: i + 1,
    chunk_id: c.id,
    document: { id: d.id, title: d.title, source: d.source },
    kb: d.kb,
    heading: c.heading,
    // Without the heading lines: a title followed by the first word reads as one name ("Employee Handbook This").
    text: bodyOf(c),
    score: MAX_PASSAGES - i,
    page: c.page ?? undefined,
    context_before: "",
    context_after: "",
  }));
}

/** What a set of documents covers, in the UI language; one document is summed up by its opening. */
function coversOf(docs: readonly OverviewSource[], lang: Lang): string {
  // Nothing to sum up: the chat says why instead ("0 documents: ." read as a bug).
  if (docs.length === 0) return "";
  if (docs.length === 1) return opening(docs[0]);
  const titles = docs.slice(0, 6).map((d) => d.document.title);
  const more = docs.length > titles.length;
  return lang === "zh"
    ? `共 ${docs.length} 篇文档：${titles.join("、")}${more ? "等" : ""}。`
    : `${docs.length} documents: ${titles.join(", ")}${more ? ", and more" : ""}.`;
}

/** The extracted overview; `search` checks each question (it must return the passage the question came from). */
async function extractOverview(docs: readonly OverviewSource[], lang: Lang, search: SuggestionSearch): Promise<Overview> {
  const sections = docs.length === 1 ? sectionsOf(docs[0]) : docs.slice(0, MAX_SECTIONS).map((d) => d.document.title);
  const found = await verifiedQuestions(samplePassages(docs, lang), lang, search, MAX_QUESTIONS);
  return { kind: "extracted", covers: coversOf(docs, lang), sections, questions: found.map((f) => f.question) };
}

const OVERVIEW_INSTRUCTIONS = `You write the overview of a knowledge base or document.
Answer in the user's language with exactly these lines and nothing else:
COVERS: one or two sentences on what the material covers
QUESTION: a question the material answers (3 to 5 such lines)`;

const OVERVIEW_TIMEOUT_MS = 20_000;

/**
 * The model's overview from the opening, sections and sample passages, its questions kept only when searching them
 * returns a passage of these documents near the top; the extracted one stands in when it fails.
 */
async function modelOverview(
  model: LanguageModelV4,
  docs: readonly OverviewSource[],
  lang: Lang,
  extracted: Overview,
  search: SuggestionSearch,
): Promise<Overview> {
  try {
    const passages = samplePassages(docs, lang)
      .slice(0, 6)
      .map((p) => `${p.document.title}${p.heading ? ` › ${p.heading}` : ""}\n${p.text.slice(0, 600)}`)
      .join("\n\n");
    const { text } = await generateText({
      model,
      instructions: OVERVIEW_INSTRUCTIONS,
      prompt: `Language: ${lang === "zh" ? "Chinese" : "English"}\n\nSections: ${extracted.sections.join("; ")}\n\nPassages:\n${passages}`,
      maxOutputTokens: 400,
      maxRetries: 0,
      abortSignal: AbortSignal.timeout(OVERVIEW_TIMEOUT_MS),
    });
    const lines = text.split("\n").map((l) => l.trim());
    const covers = lines.find((l) => /^COVERS:/i.test(l))?.replace(/^COVERS:\s*/i, "");
    const written = lines
      .filter((l) => /^QUESTION:/i.test(l))
      .map((l) => l.replace(/^QUESTION:\s*/i, ""))
      .filter((q) => q.length >= 4);
    const ids = new Set(docs.map((d) => d.document.id));
    const questions = (await answerableQuestions(written, ids, search)).map((q) => q.question);
    if (!covers || questions.length < 2) return extracted;
    return { kind: "model", covers, sections: extracted.sections, questions: questions.slice(0, MAX_QUESTIONS) };
  } catch (err) {
    console.error("[overview] the model's overview failed:", err instanceof Error ? err.message : err);
    return extracted;
  }
}

/** The cache key: who wrote it, the UI language, and every document's content (added, changed or removed ones change it). */
function overviewKey(docs: readonly OverviewSource["document"][], lang: Lang, writer: string): string {
  const h = createHash("sha256");
  for (const d of [...docs].sort((a, b) => a.id.localeCompare(b.id))) h.update(`${d.id}:${d.contentHash}\n`);
  return `${writer}:${lang}:${h.digest("hex")}`;
}

const MAX_CACHED = 200;
const cache = new Map<string, Promise<Overview>>();

/** `make()` once per key; a failed one is forgotten so the next request tries again. */
function cachedOverview(key: string, make: () => Promise<Overview>): Promise<Overview> {
  const hit = cache.get(key);
  if (hit) return hit;
  if (cache.size >= MAX_CACHED) cache.clear();
  const p = make();
  cache.set(key, p);
  p.catch(() => cache.delete(key));
  return p;
}

/**
 * The overview of `docs` (one document, or those of the knowledge bases a person reads), cached by their content:
 * extracted offline, written by the model when one is configured. Questions are checked within `kbs`.
 */
export async function overviewOf(store: Store, docs: readonly Doc[], lang: Lang, chat: AppConfig["chat"]): Promise<Overview> {
  const writer = chat.apiKey ? `model:${chat.model}` : "extracted";
  return cachedOverview(overviewKey(docs, lang, writer), async () => {
    const sources = await Promise.all(docs.map(async (document) => ({ document, chunks: await store.getChunks(document.id) })));
    const kbs = [...new Set(docs.map((d) => d.kb))];
    const search = async (query: string) =>
      (await searchKnowledge(store, { query, topK: 5, kb: kbs })).map((h) => ({
        chunk_id: h.chunk.id,
        document: { id: h.chunk.documentId },
      }));
    const extracted = await extractOverview(sources, lang, search);
    if (!chat.apiKey) return extracted;
    const model = createOpenAI({ apiKey: chat.apiKey, baseURL: chat.baseURL }).chat(chat.model);
    return modelOverview(model, sources, lang, extracted, search);
  });
}
