export { ingestDocument, prepareDocument, createBatchIngest, buildChunks, documentId, sha256 } from "./pipeline";
export type { IngestInput, IngestOptions, IngestResult, BatchFailure, BatchIngestOptions, PreparedDocument } from "./pipeline";
export { syncKnowledgeDir, listFiles } from "./sync";
export type { SyncResult } from "./sync";
export { reindexAll, reindexDocument } from "./reindex";
export type { ReindexResult } from "./reindex";
