/** Worker-thread entry for parsing (see lib/parse/pool.ts). */
import { indexedChunks } from "@/lib/chunk/indexed";
import { packChunks, packedBuffers } from "@/lib/chunk/packed";
import { extractFaqPairs } from "@/lib/faq/extract";
import { ownCpuMs } from "@/lib/worker/cpu";
import { serveTasks } from "@/lib/worker/serve";
import { parseDocumentHere } from "./index";
import type { OcrProgress, ParseResult, ParseTask } from "./pool";

serveTasks(
  async (task: ParseTask, progress): Promise<ParseResult> => {
    const ocr = task.ocr && {
      maxPages: task.ocr.maxPages,
      threads: task.ocr.threads,
      cpuDeadline: ownCpuMs() + task.ocr.cpuBudgetMs,
      onPage: (page: number, total: number) => progress({ page, total } satisfies OcrProgress),
    };
    const parsed = await parseDocumentHere(task.filename, task.data, { limits: task.limits, ocr });
    if (!task.chunking || !parsed.text.trim()) return parsed;
    const chunks = indexedChunks(parsed.text, { ...task.chunking, pages: parsed.pages });
    const utf8 = new TextEncoder().encode(parsed.text);
    return { ...parsed, packed: packChunks(chunks), faqPairs: extractFaqPairs(parsed.text), utf8 };
  },
  (result) => [...(result.packed ? packedBuffers(result.packed) : []), ...(result.utf8 ? [result.utf8.buffer as ArrayBuffer] : [])],
);
