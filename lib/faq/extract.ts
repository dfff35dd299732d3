/**
 * Offline recognition of documents that already are FAQs:
 * - question headings: `## How do I …?`, `### 如何…？` (a heading that ends in a question mark or starts
 *   with a question word), answered by the text up to the next heading;
 * - `Q:`/`A:`, `Question:`/`Answer:`, `问：`/`答：`, `问题：`/`答案：` blocks — which is also how a CSV with
 *   question/answer columns reads once parsed (lib/parse/csv writes each row as `header: value` lines).
 * Each pair points at the chunk its answer starts in.
 */
import type { ChunkRecord } from "@/lib/types";

export interface ExtractedPair {
  question: string;
  answer: string;
  /** Offset of the question in the document text. */
  start: number;
  /** Offset where the answer begins. */
  answerStart: number;
}

const QUESTION_WORD =
  /^(?:how|what|why|when|where|who|which|can|could|do|does|did|is|are|should|will|would|may|如何|怎么|怎样|为什么|什么|是否|能否|能不能|可以|可否|哪些|哪里|多少|多久|有没有)/i;
const ENDS_IN_QUESTION = /[?？]\s*$/;

const Q_MARK = String.raw`(?:\*\*)?(?:Q|Question|FAQ|问|问题|提问)(?:\*\*)?\s*[:：.．](?:\*\*)?\s*`;
const A_MARK = String.raw`(?:\*\*)?(?:A|Answer|答|答案|回答)(?:\*\*)?\s*[:：.．](?:\*\*)?\s*`;
const Q_LINE = new RegExp(`^[ \\t]*(?:[-*+]\\s+)?${Q_MARK}(.+)$`, "i");
const A_LINE = new RegExp(`^[ \\t]*(?:[-*+]\\s+)?${A_MARK}(.*)$`, "i");
const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;

interface Line {
  text: string;
  start: number;
}

function lines(text: string): Line[] {
  const out: Line[] = [];
  let start = 0;
  for (const t of text.split("\n")) {
    out.push({ text: t, start });
    start += t.length + 1;
  }
  return out;
}

const MIN_ANSWER_CHARS = 2;

function isQuestionHeading(title: string): boolean {
  const t = title.replace(/[*_`]/g, "").trim();
  return t.length >= 4 && (ENDS_IN_QUESTION.test(t) || QUESTION_WORD.test(t));
}

export function extractFaqPairs(text: string): ExtractedPair[] {
  const ls = lines(text);
  const out: ExtractedPair[] = [];
  for (let i = 0; i < ls.length; i++) {
    const line = ls[i].text;
    const heading = line.match(HEADING);
    if (heading && isQuestionHeading(heading[2])) {
      // The answer: everything up to the next heading (of any level).
      let j = i + 1;
      while (j < ls.length && !HEADING.test(ls[j].text)) j++;
      const body = ls.slice(i + 1, j);
      const answer = body
        .map((l) => l.text)
        .join("\n")
        .trim();
      // A question heading whose section is itself a Q/A list is a topic, not a question.
      if (answer.length >= MIN_ANSWER_CHARS && !body.some((l) => Q_LINE.test(l.text))) {
        const first = body.find((l) => l.text.trim()) ?? body[0];
        out.push({ question: heading[2].replace(/[*_`]/g, "").trim(), answer, start: ls[i].start, answerStart: first.start });
      }
      continue;
    }
    const q = line.match(Q_LINE);
    if (!q) continue;
    // The question may continue on the lines before the answer marker.
    let j = i + 1;
    const qParts = [q[1].trim()];
    while (j < ls.length && !A_LINE.test(ls[j].text) && !Q_LINE.test(ls[j].text) && !HEADING.test(ls[j].text) && ls[j].text.trim()) {
      qParts.push(ls[j].text.trim());
      j++;
    }
    while (j < ls.length && !ls[j].text.trim()) j++;
    const a = j < ls.length ? ls[j].text.match(A_LINE) : null;
    if (!a) continue;
    const answerLines = [a[1]];
    const answerStart = ls[j].start + ls[j].text.length - a[1].length;
    let k = j + 1;
    while (k < ls.length && !Q_LINE.test(ls[k].text) && !HEADING.test(ls[k].text)) {
      answerLines.push(ls[k].text);
      k++;
    }
    const answer = answerLines.join("\n").trim();
    if (answer.length >= MIN_ANSWER_CHARS) out.push({ question: qParts.join(" "), answer, start: ls[i].start, answerStart });
    i = k - 1;
  }
  return out;
}

/** The chunk an extracted pair points at: the first one holding the start of its answer. */
export function chunkFor(chunks: readonly Pick<ChunkRecord, "id" | "start" | "end">[], offset: number): string | null {
  const hit = chunks.find((c) => c.start <= offset && offset < c.end) ?? chunks.find((c) => c.start >= offset);
  return hit?.id ?? null;
}
