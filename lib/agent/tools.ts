/**
 * Wraps the tools the MCP client returns so that, within one turn,
 * - every retrieved chunk gets one citation number and the model reads results under those numbers;
 * - a repeated identical call is not run again but ends the loop (see LoopDetector);
 * - a failing MCP endpoint is remembered so the turn ends with an actionable error.
 */
import type { Tool, ToolSet } from "ai";
import { CitationRegistry, extractRetrieved, formatResultsForModel } from "./citations";
import { LoopDetector, REPEATED_CALL_RESULT } from "./loop";

export interface TurnState {
  registry: CitationRegistry;
  loop: LoopDetector;
  /** The first MCP transport/protocol failure of the turn, if any. */
  mcpFailure: unknown;
}

export function newTurn(): TurnState {
  return { registry: new CitationRegistry(), loop: new LoopDetector(), mcpFailure: null };
}

interface CallToolResultLike {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
}

export function wrapTools(tools: ToolSet, turn: TurnState, onCitations: () => void): ToolSet {
  const out: ToolSet = {};
  for (const [name, original] of Object.entries(tools)) {
    const execute = original.execute;
    if (!execute) {
      out[name] = original;
      continue;
    }
    const wrapped = async (input: unknown, options: Parameters<NonNullable<Tool["execute"]>>[1]) => {
      if (turn.loop.check(name, input)) {
        return { content: [{ type: "text", text: REPEATED_CALL_RESULT }], structuredContent: { repeated: true }, isError: false };
      }
      let res: CallToolResultLike;
      try {
        res = (await execute(input, options)) as CallToolResultLike;
      } catch (err) {
        if (!options?.abortSignal?.aborted) turn.mcpFailure ??= err;
        throw err;
      }
      const retrieved = res && !res.isError ? extractRetrieved(res.structuredContent) : null;
      if (!retrieved) return res;
      const citations = turn.registry.add(retrieved);
      onCitations();
      return {
        content: [{ type: "text", text: formatResultsForModel(citations) }],
        structuredContent: {
          ...(res.structuredContent as object),
          results: citations.map((c) => ({ ...c, ref: c.n })),
        },
        isError: false,
      };
    };
    out[name] = { ...original, execute: wrapped, toModelOutput: plainTextOutput(original) } as Tool;
  }
  return out;
}

/**
 * The model reads a text-only MCP result as plain text. (The generic MCP conversion yields a list of
 * content parts, which Chat Completions providers send as a JSON string with escaped newlines.)
 */
function plainTextOutput(original: Tool): NonNullable<Tool["toModelOutput"]> {
  return (args) => {
    const content = (args.output as CallToolResultLike | undefined)?.content;
    if (Array.isArray(content) && content.length > 0 && content.every((c) => c?.type === "text" && typeof c.text === "string")) {
      const value = content.map((c: { text: string }) => c.text).join("\n\n");
      return (args.output as CallToolResultLike).isError ? { type: "error-text", value } : { type: "text", value };
    }
    if (original.toModelOutput) return original.toModelOutput(args);
    return { type: "json", value: (args.output ?? null) as never };
  };
}

