import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { getFaqStore } from "@/lib/faq/store";
import { faqMarkdown } from "@/lib/faq/types";
import { FAQ_URI_TEMPLATE, faqUri } from "@/lib/limits";
import { inScope, type ToolContext } from "./context";
import { decode, MIME_TYPE, RESOURCE_NOT_FOUND } from "./resources";

/** Every accepted FAQ entry in scope is a resource `kb://<kb>/faq/<id>` (Markdown: question, answer, phrasings). */
export function registerFaqResources(server: McpServer, ctx: ToolContext) {
  server.registerResource(
    "faq",
    new ResourceTemplate(FAQ_URI_TEMPLATE, {
      list: async () => {
        const faqs = await getFaqStore(await ctx.getStore());
        const entries = (await faqs.list({ status: "accepted", kb: ctx.kbs })).filter((f) => inScope(ctx, f.kb));
        return {
          resources: entries.map((f) => ({
            uri: faqUri(f.kb, f.id),
            name: `faq-${f.id}`,
            title: f.question,
            mimeType: MIME_TYPE,
            description: `FAQ entry in knowledge base "${f.kb}" (${f.source.label})`,
          })),
        };
      },
    }),
    { title: "FAQ entries", description: "A curated question and its answer.", mimeType: MIME_TYPE },
    async (uri, variables) => {
      const kb = decode(variables.kb);
      const id = decode(variables.faq_id);
      const faq = kb !== null && id !== null && inScope(ctx, kb) ? await (await getFaqStore(await ctx.getStore())).get(id) : null;
      if (!faq || faq.kb !== kb) throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri.href}`, { uri: uri.href });
      return { contents: [{ uri: uri.href, mimeType: MIME_TYPE, text: faqMarkdown(faq) }] };
    },
  );
}
