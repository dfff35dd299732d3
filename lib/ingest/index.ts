export type { BatchFailure } from "./pipeline";
export { addConcurrently, createBatchIngest, ingestDocument, sha256 } from "./pipeline";
export { reindexAll } from "./reindex";
export { listFiles, syncKnowledgeDir } from "./sync";
