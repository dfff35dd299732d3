/**
 * One chat turn: connect an MCP client to the knowledge-base endpoint (our own /api/mcp by default),
 * run the streamText tool loop with its tools, and stream the answer as a UI message stream with the
 * turn's citations as a `data-citations` part and, once it is complete, the citation check of the answer as
 * `data-check` (lib/agent/support.ts).
 */
import { createMCPClient, type MCPClient } from "@ai-sdk/mcp";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import {
  createUIMessageStream,
  createUIMessageStreamResponse,
  type InferUIMessageChunk,
  isStepCount,
  type ModelMessage,
  streamText,
  type TextStreamPart,
  type Tool,
  type ToolSet,
  toUIMessageStream,
  type UIMessageStreamWriter,
} from "ai";
import { internalMcpSecret } from "@/lib/auth/internal";
import type { AppConfig } from "@/lib/config";
import { KB_FILTER_HEADER } from "@/lib/kb/names";
import { CONNECTOR_TOOLS, TOOL, WRITE_TOOLS } from "@/lib/tools/names";
import { DOCUMENT_FILTER_HEADER, encodeDocumentFilter, hasPickedDocuments } from "@/lib/tools/scope";
import { createCitationStreamSanitizer, extractRetrieved, shownCitation } from "./citations";
import { decomposeWithModel } from "./decompose-model";
import { classifyChatError, type ErrorContext } from "./errors";
import { modelFollowUps, verifiedOfflineFollowUps } from "./follow-ups";
import { createOfflineModel, OFFLINE_MODEL_ID, SEARCH_TOP_K } from "./offline-model";
import { SCOPED_PROMPT, SYSTEM_PROMPT } from "./prompt";
import type { ChatError, ChatMetadata, ChatUIMessage } from "./protocol";
import { checkCitations } from "./support";
import { attribute, modelOutputOf, newTurn, type TurnState, wrapTools } from "./tools";

export interface ChatOptions {
  config: AppConfig["chat"];
  /** Conversation for this turn, ending with the user's question (see memory.ts). */
  messages: ModelMessage[];
  mcpUrl: string;
  /** Limit the tools to these knowledge bases (sent as X-KB-Filter; the MCP server scopes itself). */
  kbs?: string[];
  /** Limit the searches to these documents (sent as X-Document-Filter); an empty list finds nothing. */
  documents?: readonly string[];
  signal?: AbortSignal;
  /** For tests: a model to use instead of the configured one. */
  model?: LanguageModelV4;
  /** Answers already given to this question (regenerate): the offline answerer offers the next-best passages. */
  avoid?: readonly string[];
  /** The model the user picked for this conversation (one of availableModels); default: CHAT_MODEL. */
  modelId?: string;
  /** The knowledge bases' custom instructions (lib/kb/instructions.ts), added to the model's system prompt. */
  instructions?: string;
  /** The UI language: the offline follow-up suggestions' language when the question's script does not say. */
  locale?: string;
  /** The answer's message id (default: a new random one). */
  messageId?: string;
  /**
   * Called once the answer has ended (finished, stopped or failed), with the message as streamed and the
   * knowledge bases its tool results drew from: what the server keeps as the answer (lib/conversations/answers.ts).
   */
  onAnswer?: (answer: RecordedAnswer) => Promise<void>;
}

/** An answer as the server saw it stream. */
export interface RecordedAnswer {
  message: ChatUIMessage;
  /** The knowledge bases its tool results drew from. */
  kbs: string[];
  /** Whether a result's knowledge bases could not be told: it may hold any the chat could reach. */
  unattributed: boolean;
}

function chatModel(
  config: AppConfig["chat"],
  avoid?: readonly string[],
  modelId = config.model,
  scoped = false,
): { model: LanguageModelV4; metadata: ChatMetadata } {
  if (!config.apiKey) return { model: createOfflineModel({ avoid, scoped }), metadata: { mode: "offline", model: OFFLINE_MODEL_ID } };
  const provider = createOpenAI({ apiKey: config.apiKey, baseURL: config.baseURL });
  // .chat(): the Chat Completions API, which Ollama, vLLM, DeepSeek and other compatible servers speak.
  return { model: provider.chat(modelId), metadata: { mode: "llm", model: modelId } };
}

/**
 * The system prompt, with the knowledge bases' own instructions after the app's rules; `scoped`: the user limited
 * the conversation to picked documents, so a refusal names them rather than the whole knowledge base.
 */
function systemPrompt(instructions?: string, scoped = false): string {
  const own = instructions?.trim();
  const base = scoped ? `${SYSTEM_PROMPT}\n- ${SCOPED_PROMPT}` : SYSTEM_PROMPT;
  return own
    ? `${base}\n\nInstructions of the knowledge base owners (follow them unless they conflict with the rules above):\n${own}`
    : base;
}

/**
 * Headers of the chat's MCP requests. The internal secret lets the app's own chat through when the endpoint
 * requires tokens (and past its rate limit); it is not sent to a separately configured MCP_URL unless
 * INTERNAL_MCP_TOKEN is set (the same value on that server). X-KB-Filter narrows the tools to the chosen
 * knowledge bases.
 */
export function mcpHeaders(
  config: Pick<AppConfig["chat"], "mcpUrl">,
  kbs?: string[],
  documents?: readonly string[],
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!config.mcpUrl || process.env.INTERNAL_MCP_TOKEN) headers.Authorization = `Bearer ${internalMcpSecret()}`;
  if (kbs?.length) headers[KB_FILTER_HEADER] = kbs.map(encodeURIComponent).join(",");
  if (documents?.length) headers[DOCUMENT_FILTER_HEADER] = encodeDocumentFilter(documents);
  return headers;
}

/** The chat only reads: the MCP write tools are never offered to its model, nor the connectors' copies of the search. */
export function readOnlyTools(tools: ToolSet): ToolSet {
  return Object.fromEntries(Object.entries(tools).filter(([name]) => !WRITE_TOOLS.has(name) && !CONNECTOR_TOOLS.has(name)));
}

/** One search through the MCP tool, outside the turn (its results get no citation numbers): the follow-up check. */
function searchOnce(tools: ToolSet, turn: TurnState, signal?: AbortSignal) {
  const search = tools[TOOL.searchKnowledge]?.execute;
  return async (query: string) => {
    if (!search) return null;
    const out = (await search(
      { query, top_k: SEARCH_TOP_K },
      { toolCallId: "follow-up-check", messages: [], abortSignal: signal, context: undefined },
    )) as {
      structuredContent?: unknown;
    };
    // The suggestions are built from what it finds: they draw on its knowledge bases too.
    attribute(turn, TOOL.searchKnowledge, out);
    return extractRetrieved(out?.structuredContent);
  };
}

function errorResponse(err: ChatError, status: number): Response {
  return Response.json({ error: err }, { status });
}

/**
 * Rewrites streamed answer text so every `[n]` points at a chunk retrieved in this turn; once the answer is
 * complete (the stream's finish), hands its text to `onAnswer` (the citation check).
 */
function citationTransform(turn: TurnState, onAnswer: (text: string) => void) {
  let answer = "";
  const sanitizers = new Map<string, ReturnType<typeof createCitationStreamSanitizer>>();
  const isValid = (n: number) => turn.registry.has(n);
  return new TransformStream<TextStreamPart<ToolSet>, TextStreamPart<ToolSet>>({
    transform(part, controller) {
      if (part.type === "text-start") {
        sanitizers.set(part.id, createCitationStreamSanitizer(isValid));
      } else if (part.type === "text-delta") {
        const s = sanitizers.get(part.id) ?? createCitationStreamSanitizer(isValid);
        sanitizers.set(part.id, s);
        const text = s.push(part.text);
        answer += text;
        if (text) controller.enqueue({ ...part, text });
        return;
      } else if (part.type === "text-end") {
        const rest = sanitizers.get(part.id)?.flush();
        sanitizers.delete(part.id);
        answer += rest;
        if (rest) controller.enqueue({ type: "text-delta", id: part.id, text: rest });
      } else if (part.type === "finish") {
        if (turn.mcpFailure) controller.enqueue({ type: "error", error: turn.mcpFailure });
        else if (answer.trim()) onAnswer(answer);
      }
      controller.enqueue(part);
    },
  });
}

function lastQuestion(messages: readonly ModelMessage[]): string {
  const last = messages.at(-1);
  if (last?.role !== "user") return "";
  return typeof last.content === "string" ? last.content : last.content.map((p) => (p.type === "text" ? p.text : "")).join("");
}

/**
 * Searches each sub-question in parallel, as tool calls the UI shows one by one, and returns the
 * conversation with those calls and their results appended, for the tool loop to continue from.
 */
async function searchParts(
  parts: readonly string[],
  tools: ToolSet,
  messages: ModelMessage[],
  writer: UIMessageStreamWriter<ChatUIMessage>,
  signal?: AbortSignal,
): Promise<ModelMessage[]> {
  const search = tools[TOOL.searchKnowledge];
  const calls = parts.map((query, i) => ({
    toolCallId: `part-${i + 1}-${crypto.randomUUID().slice(0, 8)}`,
    input: { query, top_k: SEARCH_TOP_K },
  }));
  writer.write({ type: "start-step" });
  for (const c of calls)
    writer.write({ type: "tool-input-available", toolCallId: c.toolCallId, toolName: TOOL.searchKnowledge, input: c.input, dynamic: true });
  const outputs = await Promise.all(
    calls.map(async (c) => {
      try {
        const output = await (search.execute as NonNullable<Tool["execute"]>)(c.input, {
          toolCallId: c.toolCallId,
          messages,
          abortSignal: signal,
          context: undefined,
        });
        writer.write({ type: "tool-output-available", toolCallId: c.toolCallId, output, dynamic: true });
        return output;
      } catch (err) {
        const errorText = err instanceof Error ? err.message : String(err);
        writer.write({ type: "tool-output-error", toolCallId: c.toolCallId, errorText, dynamic: true });
        return { content: [{ type: "text", text: `The search failed: ${errorText}` }] };
      }
    }),
  );
  writer.write({ type: "finish-step" });
  const modelOutputs = await Promise.all(outputs.map((o) => modelOutputOf(o)));
  return [
    ...messages,
    {
      role: "assistant",
      content: calls.map((c) => ({ type: "tool-call" as const, toolCallId: c.toolCallId, toolName: TOOL.searchKnowledge, input: c.input })),
    },
    {
      role: "tool",
      content: calls.map((c, i) => ({
        type: "tool-result" as const,
        toolCallId: c.toolCallId,
        toolName: TOOL.searchKnowledge,
        output: modelOutputs[i],
      })),
    },
  ];
}

export async function runChat(opts: ChatOptions): Promise<Response> {
  const { config, mcpUrl } = opts;
  const ctx: ErrorContext = { baseURL: config.baseURL ?? "https://api.openai.com/v1", model: opts.modelId ?? config.model, mcpUrl };
  const classify = (e: unknown) => JSON.stringify(classifyChatError(e, ctx));

  let client: MCPClient;
  let mcpTools: ToolSet;
  try {
    client = await createMCPClient({
      transport: { type: "http", url: mcpUrl, headers: mcpHeaders(config, opts.kbs, opts.documents) },
      clientName: "kb-chat",
      initializationOptions: { signal: opts.signal },
    });
  } catch (err) {
    console.error(`[chat] cannot connect to the MCP endpoint ${mcpUrl}:`, err);
    return errorResponse({ code: "mcp_unavailable", message: "The knowledge-base MCP endpoint is not responding.", detail: mcpUrl }, 502);
  }
  try {
    mcpTools = readOnlyTools(await client.tools());
  } catch (err) {
    await client.close().catch(() => {});
    console.error(`[chat] cannot list the tools of ${mcpUrl}:`, err);
    return errorResponse({ code: "mcp_unavailable", message: "The knowledge-base MCP endpoint is not responding.", detail: mcpUrl }, 502);
  }

  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    client.close().catch(() => {});
  };
  opts.signal?.addEventListener("abort", close, { once: true });

  const { model, metadata } = opts.model
    ? { model: opts.model, metadata: { mode: "llm" as const, model: opts.model.modelId } }
    : chatModel(config, opts.avoid, opts.modelId, hasPickedDocuments(opts));
  const maxSteps = Math.max(1, config.maxSteps);
  const turn = newTurn();

  const stream = createUIMessageStream<ChatUIMessage>({
    execute: async ({ writer }) => {
      writer.write({ type: "start", messageMetadata: metadata });
      const tools = wrapTools(mcpTools, turn, () => {
        writer.write({ type: "data-citations", id: "citations", data: { citations: turn.registry.list().map(shownCitation) } });
      });
      let messages = opts.messages;
      const question = lastQuestion(messages);
      // A model decomposes a multi-part question first (the offline answerer does it by rules in its own first step).
      if (metadata.mode === "llm" && tools[TOOL.searchKnowledge]) {
        const parts = await decomposeWithModel(model, question, opts.signal);
        if (parts.length > 1) messages = await searchParts(parts, tools, messages, writer, opts.signal);
      }
      const result = streamText({
        model,
        instructions: systemPrompt(metadata.mode === "llm" ? opts.instructions : undefined, hasPickedDocuments(opts)),
        messages,
        tools,
        stopWhen: [isStepCount(maxSteps), () => turn.mcpFailure != null],
        // After a repeated call, and on the last allowed step, the model must answer instead of searching.
        prepareStep: ({ stepNumber }) => (turn.loop.tripped || stepNumber >= maxSteps - 1 ? { toolChoice: "none" as const } : {}),
        maxRetries: 1,
        abortSignal: opts.signal,
        onError: ({ error }) =>
          console.error("[chat] model error:", classifyChatError(error, ctx).code, error instanceof Error ? error.message : error),
      });
      let answer = "";
      const ui = toUIMessageStream<ToolSet, ChatUIMessage>({
        stream: result.stream.pipeThrough(
          citationTransform(turn, (text) => {
            answer = text;
            // Every answer's citations checked against the chunks they cite (lib/agent/support.ts).
            writer.write({ type: "data-check", id: "check", data: checkCitations(text, turn.registry.list(), question) });
          }),
        ),
        sendStart: false,
        onError: classify,
      });
      // The follow-up suggestions come after the answer, before the message's finish.
      let finish: InferUIMessageChunk<ChatUIMessage> | undefined;
      const reader = ui.getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        if (r.value.type === "finish") finish = r.value;
        else writer.write(r.value);
      }
      if (answer && !opts.signal?.aborted) {
        const passages = turn.registry.list();
        const search = searchOnce(mcpTools, turn, opts.signal);
        const questions =
          metadata.mode === "llm"
            ? await modelFollowUps(model, question, answer, passages, search, opts.signal, opts.locale)
            : await verifiedOfflineFollowUps(question, answer, passages, search, opts.locale);
        if (questions.length) writer.write({ type: "data-followups", id: "followups", data: { questions } });
      }
      if (finish) writer.write(finish);
    },
    onError: classify,
    generateId: opts.messageId ? () => opts.messageId! : undefined,
    onEnd: async ({ responseMessage }) => {
      close();
      await opts.onAnswer?.({ message: responseMessage, kbs: [...turn.kbs].sort(), unattributed: turn.unattributed });
    },
  });
  return createUIMessageStreamResponse({ stream });
}
