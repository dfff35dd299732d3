/**
 * FAQ export and import as CSV (question, answer, phrasings, tags, kb; lists joined by " | ") or JSON Lines
 * (one FaqRecord-like object per line). Import validates every row with the one FAQ rule before writing any.
 */
import Papa from "papaparse";
import { AppError } from "@/lib/types";
import type { NewFaq } from "./store";
import { type FaqRecord, faqInputSchema } from "./types";

const LIST_SEP = " | ";

export function toCsv(faqs: readonly FaqRecord[]): string {
  return Papa.unparse({
    fields: ["question", "answer", "phrasings", "tags", "kb", "source"],
    data: faqs.map((f) => [f.question, f.answer, f.phrasings.join(LIST_SEP), f.tags.join(LIST_SEP), f.kb, f.source.label]),
  });
}

export function toJsonl(faqs: readonly FaqRecord[]): string {
  return faqs.map((f) => JSON.stringify(f)).join("\n") + (faqs.length ? "\n" : "");
}

const split = (v: unknown) =>
  typeof v === "string"
    ? v
        .split(/\s*\|\s*/)
        .map((s) => s.trim())
        .filter(Boolean)
    : Array.isArray(v)
      ? v.map(String)
      : undefined;

/** Entries from a CSV (header row with question/answer columns; 问题/答案 also accepted) or JSONL text. */
export function parseImport(text: string, format: "csv" | "jsonl", defaultKb: string): NewFaq[] {
  let rows: Record<string, unknown>[];
  if (format === "jsonl") {
    rows = text
      .split("\n")
      .map((l, i) => [l.trim(), i + 1] as const)
      .filter(([l]) => l)
      .map(([l, n]) => {
        try {
          return JSON.parse(l) as Record<string, unknown>;
        } catch {
          throw new AppError("bad_request", `Line ${n} is not valid JSON.`);
        }
      });
  } else {
    const parsed = Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ""), {
      header: true,
      skipEmptyLines: "greedy",
      transformHeader: (h) =>
        ({ 问题: "question", 问: "question", 答案: "answer", 答: "answer", q: "question", a: "answer" })[h.trim().toLowerCase()] ??
        h.trim().toLowerCase(),
    });
    rows = parsed.data;
  }
  return rows.map((r, i) => {
    const input = faqInputSchema.safeParse({
      question: r.question,
      answer: r.answer,
      phrasings: split(r.phrasings),
      tags: split(r.tags),
      kb: typeof r.kb === "string" && r.kb.trim() ? r.kb : undefined,
    });
    if (!input.success) throw new AppError("bad_request", `Entry ${i + 1}: ${input.error.issues.map((x) => x.message).join("; ")}`);
    return {
      kb: input.data.kb ?? defaultKb,
      question: input.data.question,
      answer: input.data.answer,
      phrasings: input.data.phrasings,
      tags: input.data.tags,
      source: { documentId: null, chunkId: null, label: "import" },
      origin: "import" as const,
    };
  });
}
