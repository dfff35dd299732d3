/** The MCP tools' names: one spelling for the server, the chat agent and the UI. Browser-safe. */
export const TOOL = {
  searchKnowledge: "search_knowledge",
  listDocuments: "list_documents",
  readDocument: "read_document",
  addDocument: "add_document",
  deleteDocument: "delete_document",
  searchFaq: "search_faq",
  addFaq: "add_faq",
  deleteFaq: "delete_faq",
  addSource: "add_source",
  listSources: "list_sources",
  /** The two tools ChatGPT's deep research and company knowledge call, by these exact names and shapes. */
  search: "search",
  fetch: "fetch",
} as const;

type ToolName = (typeof TOOL)[keyof typeof TOOL];

/**
 * Tools that change the store, and list_sources (sources name internal sites and repositories): they need a
 * read-write token, and the app's own chat never gets them.
 */
export const WRITE_TOOLS: ReadonlySet<string> = new Set<ToolName>([
  TOOL.addDocument,
  TOOL.deleteDocument,
  TOOL.addFaq,
  TOOL.deleteFaq,
  TOOL.addSource,
  TOOL.listSources,
]);

/** search_knowledge and read_document reshaped for ChatGPT's connectors: the app's own chat uses the originals. */
export const CONNECTOR_TOOLS: ReadonlySet<string> = new Set<ToolName>([TOOL.search, TOOL.fetch]);
