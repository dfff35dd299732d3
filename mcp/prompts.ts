import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { GENERIC_SEARCH_TOOL, kbNameSchema, searchToolNames } from "@/lib/kb/names";
import { MAX_QUESTION_CHARS } from "@/lib/limits";
import { catalogKbNames, inScope, perKbNames, type ToolContext } from "./context";

const ANSWER_WITH_CITATIONS = "answer_with_citations";

/** The instructions a client model gets to answer one question from the knowledge base, with citations. */
function answerWithCitationsText(question: string, tool: string, kb?: string): string {
  const where = kb ? `the knowledge base "${kb}"` : "the knowledge base";
  return [
    `Answer the question below using only ${where}, and cite your sources.`,
    "",
    "How to work:",
    `1. Call ${tool} with the question (or its key terms) as query. Results come back numbered [1], [2]… with document title, section and chunk_id.`,
    `2. If the results do not answer it, call ${tool} once more with other words (synonyms, the other language of the documents).`,
    "3. If a passage is cut off or you need its context, call read_document with its chunk_id.",
    "4. Answer in the language of the question. After each statement taken from a passage, cite it by its number in square brackets, e.g. [1] or [2][3]. Do not cite passages you did not use.",
    `5. If nothing relevant is found, say that ${where} does not cover it; never answer from general knowledge as if it came from the documents.`,
    "",
    `Question: ${question}`,
  ].join("\n");
}

const argsSchemaFor = perKbNames((kbNames = []) => ({
  question: z.string().min(1).max(MAX_QUESTION_CHARS).describe("The question to answer"),
  kb: kbNameSchema.optional().describe(`Knowledge base to answer from${kbNames.length ? ` (${kbNames.join(", ")})` : ""}; omit for all`),
}));

export function registerPrompts(server: McpServer, ctx: ToolContext) {
  const kbNames = catalogKbNames(ctx) ?? [];
  const toolNames = searchToolNames(kbNames);
  server.registerPrompt(
    ANSWER_WITH_CITATIONS,
    {
      title: "Answer with citations",
      description: "Answer a question from the knowledge base, citing the passages used as [n].",
      argsSchema: argsSchemaFor(kbNames),
    },
    ({ question, kb }) => {
      let tool: string = GENERIC_SEARCH_TOOL;
      if (kb) {
        if (!inScope(ctx, kb) || (ctx.catalog && !toolNames.has(kb))) {
          throw new McpError(ErrorCode.InvalidParams, `Unknown knowledge base "${kb}". Available: ${kbNames.join(", ") || "none"}.`);
        }
        tool = toolNames.get(kb) ?? GENERIC_SEARCH_TOOL;
      }
      return {
        description: `Answer "${question.slice(0, 80)}" with citations`,
        messages: [{ role: "user", content: { type: "text", text: answerWithCitationsText(question, tool, kb) } }],
      };
    },
  );
}
