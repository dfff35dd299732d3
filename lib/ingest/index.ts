export { ingestDocument, buildChunks, documentId, safeFileName, sha256 } from "./pipeline";
export type { IngestInput, IngestOptions, IngestResult } from "./pipeline";
export { syncKnowledgeDir, listFiles } from "./sync";
export type { SyncResult } from "./sync";
export { reindexAll } from "./reindex";
export type { ReindexResult } from "./reindex";
