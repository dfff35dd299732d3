/** Where a passage opens in the app: one path for the chat's citations and the MCP tools' URLs. Browser-safe. */
export function passagePath(documentId: string, chunkId: string, claim?: string): string {
  const q = claim ? `&q=${encodeURIComponent(claim.slice(0, 300))}` : "";
  return `/documents/${encodeURIComponent(documentId)}?chunk=${encodeURIComponent(chunkId)}${q}`;
}
