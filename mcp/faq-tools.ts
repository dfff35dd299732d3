import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolContext } from "./context";
import * as addFaq from "./add-faq";
import * as deleteFaq from "./delete-faq";
import { registerFaqResources } from "./faq-resources";
import * as searchFaq from "./search-faq";

/** The FAQ tools every server has. */
export const FAQ_TOOL_NAMES: readonly string[] = [searchFaq.name, addFaq.name, deleteFaq.name];
/** Tools that write; the app's own chat never offers them to its model. */
export const FAQ_WRITE_TOOLS: readonly string[] = [addFaq.name, deleteFaq.name];

/** Registers search_faq, add_faq, delete_faq and the FAQ resources. */
export function registerFaqTools(server: McpServer, ctx: ToolContext): readonly string[] {
  searchFaq.registerSearchFaq(server, ctx);
  addFaq.registerAddFaq(server, ctx);
  deleteFaq.registerDeleteFaq(server, ctx);
  registerFaqResources(server, ctx);
  return FAQ_TOOL_NAMES;
}
