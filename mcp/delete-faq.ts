import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { getFaqStore } from "@/lib/faq/store";
import { faqIdSchema } from "@/lib/faq/types";
import { TOOL } from "@/lib/tools/names";
import { DELETES } from "./annotations";
import { guarded, type ToolContext, toolResult } from "./context";
import { openWrite } from "./write-access";

const name = TOOL.deleteFaq;

const inputSchema = z.strictObject({
  id: faqIdSchema.describe("The faq_id, as search_faq or add_faq return it."),
});

const outputSchema = z.object({ deleted: z.boolean(), id: z.string() });

const annotations = DELETES;

export function registerDeleteFaq(server: McpServer, ctx: ToolContext) {
  server.registerTool(
    name,
    {
      title: "Delete a FAQ entry",
      description: "Delete a FAQ entry by its faq_id. Requires a read-write access token.",
      inputSchema,
      outputSchema,
      annotations,
    },
    guarded(name, async ({ id }): Promise<CallToolResult> => {
      const opened = await openWrite(ctx, {
        find: async (store) => (await getFaqStore(store)).get(id),
        missing: `There is no FAQ entry with id ${id}.`,
      });
      if ("refused" in opened) return opened.refused;
      const { found: faq, store } = opened;
      await (await getFaqStore(store)).delete(id);
      ctx.audit?.("faq_delete", { kb: faq.kb, target: id, detail: `${faq.question.slice(0, 200)} (MCP)` });
      return toolResult(`Deleted FAQ entry "${faq.question}" (faq_id: ${id}).`, { deleted: true, id });
    }),
  );
}
