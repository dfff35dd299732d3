/** Worker entry for parsing and OCR (see lib/parse/pool.ts). */
import { indexedChunks } from "@/lib/chunk/indexed";
import { packChunks, packedBuffers } from "@/lib/chunk/packed";
import { extractFaqPairs } from "@/lib/faq/extract";
import { ownCpuMs } from "@/lib/worker/cpu";
import { serveTasks } from "@/lib/worker/serve";
import { parseDocumentHere } from "./index";
import { type OcrRun, recognizePage } from "./ocr";
import type { PageImage, PageRead, ParseResult, ParseTask, RecognizeTask } from "./pool";

/** What a page's text is while its image is only handed over (the file's text is then thrown away): enough to count as read. */
const NOT_READ_YET = "(page handed over for OCR)";

serveTasks(
  async (task: ParseTask | RecognizeTask, progress): Promise<ParseResult | PageRead> => {
    if ("recognize" in task) {
      progress({ reading: true });
      const before = ownCpuMs();
      const text = await recognizePage(Buffer.from(task.recognize), task.threads);
      progress({ reading: false }); // heard before the next page's start, which an answer is not (it settles a promise)
      return { text, cpuMs: ownCpuMs() - before };
    }
    let ocr: OcrRun | undefined;
    if (task.ocr) {
      const texts = task.ocr.pages;
      let next = 0;
      ocr = {
        maxPages: task.ocr.maxPages,
        cpuDeadline: ownCpuMs() + task.ocr.cpuBudgetMs,
        read: texts
          ? async () => texts[next++] ?? ""
          : async (page, total, image) => {
              progress({ page, total, image: await image() } satisfies PageImage);
              return NOT_READ_YET;
            },
      };
    }
    const parsed = await parseDocumentHere(task.filename, task.data, { limits: task.limits, ocr });
    if (!task.chunking || !parsed.text.trim()) return parsed;
    const chunks = indexedChunks(parsed.text, { ...task.chunking, pages: parsed.pages });
    const utf8 = new TextEncoder().encode(parsed.text);
    return { ...parsed, packed: packChunks(chunks), faqPairs: extractFaqPairs(parsed.text), utf8 };
  },
  (result) =>
    "packed" in result || "utf8" in result
      ? [...(result.packed ? packedBuffers(result.packed) : []), ...(result.utf8 ? [result.utf8.buffer as ArrayBuffer] : [])]
      : [],
);
