/** Worker-thread entry for parsing (see lib/parse/pool.ts). */
import { serveTasks } from "@/lib/worker/serve";
import { parseDocumentHere } from "./index";
import type { ParseTask } from "./pool";

serveTasks((task: ParseTask) => parseDocumentHere(task.filename, task.data, { limits: task.limits }));
