export type { BatchFailure } from "./batch";
export { addConcurrently, createBatchIngest } from "./batch";
export { ingestDocument, sha256 } from "./prepare";
export { reindexAll } from "./reindex";
export { listFiles, readInputFile, syncKnowledgeDir, walkFiles } from "./sync";
