/** Knowledge-base shapes the API sends (/api/kbs). Types only: the browser imports them too. */

export interface KbRecord {
  /** Slug, unique; documents carry it in their `kb` column. */
  name: string;
  title: string;
  /** What the knowledge base holds; models read it to decide when to search it. */
  description: string;
  /** Custom instructions (tone, language, what to refuse) added to the chat model's system prompt. */
  instructions?: string;
  createdAt: string;
  updatedAt: string;
}

export interface KnowledgeBase extends KbRecord {
  documentCount: number;
  /** The knowledge base uploads without a kb and the knowledge folder go into; cannot be renamed or deleted. */
  isDefault: boolean;
  /**
   * Its search tool on the library's MCP endpoint (/api/mcp), e.g. `search_hr`: unique among all knowledge
   * bases, so a clash ("a-b" and "a_b") carries a short hash. Shown by the UI as is.
   */
  toolName: string;
}
