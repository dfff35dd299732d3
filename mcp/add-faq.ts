import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { getFaqStore } from "@/lib/faq/store";
import { answerField, phrasingsField, questionField } from "@/lib/faq/types";
import { tagsSchema } from "@/lib/kb/fields";
import { faqUri } from "@/lib/limits";
import { TOOL } from "@/lib/tools/names";
import { ADDS } from "./annotations";
import { kbArgument, perKbNames, type ToolContext, toolResult } from "./context";
import { registerAddTool } from "./register";

const name = TOOL.addFaq;

const inputSchemaFor = perKbNames((kbNames) =>
  z.strictObject({
    question: questionField.describe("The question, as users ask it."),
    answer: answerField.describe("The answer, in Markdown."),
    kb: kbArgument(
      kbNames,
      "Knowledge base the entry belongs to. Default: the default knowledge base (or the only one this server serves).",
    ),
    phrasings: phrasingsField.optional().describe("Other ways of asking the same question."),
    tags: tagsSchema.optional(),
  }),
);

const outputSchema = z.object({
  faq: z.object({ id: z.string(), kb: z.string(), question: z.string() }),
  uri: z.string().describe("Resource URI of the FAQ entry"),
});

const config = {
  title: "Add a FAQ entry",
  description:
    "Store a question and its answer as a FAQ entry; search_knowledge then returns it first whenever a question " +
    "matches it. Requires a read-write access token.",
  input: inputSchemaFor,
  outputSchema,
  annotations: ADDS,
};

export function registerAddFaq(server: McpServer, ctx: ToolContext) {
  registerAddTool(server, ctx, name, config, async (args, { kb, store }) => {
    const [faq] = await (await getFaqStore(store)).add([
      {
        kb,
        question: args.question,
        answer: args.answer,
        phrasings: args.phrasings,
        tags: args.tags,
        source: { documentId: null, chunkId: null, label: `token ${ctx.token?.name ?? "internal"}` },
        origin: "manual",
      },
    ]);
    ctx.audit?.("faq_create", { kb: faq.kb, target: faq.id, detail: `${faq.question.slice(0, 200)} (MCP)` });
    const uri = faqUri(faq.kb, faq.id);
    return toolResult(`Added FAQ entry "${faq.question}" to knowledge base "${faq.kb}" — faq_id: ${faq.id} (${uri}).`, {
      faq: { id: faq.id, kb: faq.kb, question: faq.question },
      uri,
    });
  });
}
