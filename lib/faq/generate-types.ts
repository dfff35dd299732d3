/** Progress of a document's FAQ generation (shared with the browser). */
export interface GenerationProgress {
  documentId: string;
  status: "running" | "done" | "cancelled" | "failed";
  /** Sections processed / all sections. */
  done: number;
  total: number;
  /** Sections answered from the cache (no model call). */
  cached: number;
  kept: number;
  dropped: number;
  error?: string;
}
