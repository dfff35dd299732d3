export { createBatchIngest, ingestDocument, sha256 } from "./pipeline";
export type { BatchFailure } from "./pipeline";
export { listFiles, syncKnowledgeDir } from "./sync";
export { reindexAll } from "./reindex";
