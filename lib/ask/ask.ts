/**
 * One question answered from the terminal with the chat's own logic: runChat (the same tool loop, the same
 * MCP tools, the offline answerer or the configured model) against the app's MCP endpoint, read back from
 * its UI message stream.
 */
import { runChat } from "@/lib/agent/chat";
import { citedNumbers, passagePlace } from "@/lib/agent/citations";
import type { ChatMetadata, Citation } from "@/lib/agent/protocol";
import type { AppConfig } from "@/lib/config";
import { faqIdOfChunk } from "@/lib/faq/types";

export interface AskResult {
  question: string;
  answer: string;
  metadata: ChatMetadata;
  /** Every passage or FAQ entry retrieved, by number; `cited` marks those the answer cites. */
  sources: (Citation & { cited: boolean; type: "faq" | "chunk" })[];
}

export class AskError extends Error {}

/** Parses an AI SDK UI message stream (server-sent events) into the answer text, citations and metadata. */
async function readUiStream(
  body: ReadableStream<Uint8Array>,
): Promise<{ text: string; citations: Citation[]; metadata: ChatMetadata; error?: string }> {
  const decoder = new TextDecoder();
  let buffer = "";
  let text = "";
  let citations: Citation[] = [];
  let metadata: ChatMetadata = {};
  let error: string | undefined;
  const handle = (line: string) => {
    if (!line.startsWith("data:")) return;
    const data = line.slice(5).trim();
    if (!data || data === "[DONE]") return;
    const part = JSON.parse(data) as Record<string, unknown>;
    if (part.type === "text-delta") text += String(part.delta ?? "");
    else if (part.type === "data-citations") citations = (part.data as { citations: Citation[] }).citations;
    else if (part.type === "start" && part.messageMetadata) metadata = part.messageMetadata as ChatMetadata;
    else if (part.type === "error") error = String(part.errorText ?? "error");
  };
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      handle(buffer.slice(0, nl).trimEnd());
      buffer = buffer.slice(nl + 1);
    }
  }
  if (buffer.trim()) handle(buffer.trim());
  return { text, citations, metadata, error };
}

export async function ask(opts: {
  question: string;
  kb?: string;
  config: AppConfig["chat"];
  mcpUrl: string;
  signal?: AbortSignal;
}): Promise<AskResult> {
  const response = await runChat({
    config: opts.config,
    messages: [{ role: "user", content: opts.question }],
    mcpUrl: opts.mcpUrl,
    kbs: opts.kb ? [opts.kb] : undefined,
    signal: opts.signal,
  });
  if (!response.ok || !response.body) {
    const body = (await response.json().catch(() => null)) as { error?: { message?: string; detail?: string } } | null;
    throw new AskError([body?.error?.message ?? `The chat failed (${response.status}).`, body?.error?.detail].filter(Boolean).join(" "));
  }
  const { text, citations, metadata, error } = await readUiStream(response.body);
  if (error && !text) {
    let message = error;
    try {
      const e = JSON.parse(error) as { message?: string; detail?: string };
      message = [e.message, e.detail].filter(Boolean).join(" ") || error;
    } catch {
      /* plain text */
    }
    throw new AskError(message);
  }
  const cited = new Set(citedNumbers(text));
  return {
    question: opts.question,
    answer: text.trim(),
    metadata,
    sources: citations.map((c) => ({
      ...c,
      cited: cited.has(c.n),
      type: faqIdOfChunk(c.chunk_id) ? ("faq" as const) : ("chunk" as const),
    })),
  };
}

/** The answer and its numbered sources, for a terminal. */
export function formatAnswer(r: AskResult): string {
  const shown = r.sources.filter((s) => s.cited);
  const lines = [r.answer];
  if (shown.length) {
    lines.push("", "Sources:");
    for (const s of shown) {
      lines.push(`  [${s.n}] ${passagePlace(s, s.type === "faq" ? `FAQ: ${s.heading}` : undefined)}`);
    }
  }
  if (r.metadata.mode === "offline") lines.push("", "(offline answerer: quotes the best passages; set OPENAI_API_KEY for a model)");
  return lines.join("\n");
}
