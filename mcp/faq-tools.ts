import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as addFaq from "./add-faq";
import type { ToolContext } from "./context";
import * as deleteFaq from "./delete-faq";
import { registerFaqResources } from "./faq-resources";
import * as searchFaq from "./search-faq";

/** Registers search_faq, add_faq, delete_faq and the FAQ resources. */
export function registerFaqTools(server: McpServer, ctx: ToolContext): void {
  searchFaq.registerSearchFaq(server, ctx);
  addFaq.registerAddFaq(server, ctx);
  deleteFaq.registerDeleteFaq(server, ctx);
  registerFaqResources(server, ctx);
}
