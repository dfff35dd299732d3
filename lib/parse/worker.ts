/** Worker-thread entry for parsing (see lib/parse/pool.ts). */
import { indexedChunks } from "@/lib/chunk/indexed";
import { serveTasks } from "@/lib/worker/serve";
import { parseDocumentHere } from "./index";
import type { ParseTask } from "./pool";

serveTasks(async (task: ParseTask) => {
  const parsed = await parseDocumentHere(task.filename, task.data, { limits: task.limits });
  if (!task.chunking || !parsed.text.trim()) return parsed;
  return { ...parsed, chunks: indexedChunks(parsed.text, { ...task.chunking, pages: parsed.pages }) };
});
