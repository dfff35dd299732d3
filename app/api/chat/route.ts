import { randomUUID } from "node:crypto";
import { runChat } from "@/lib/agent/chat";
import { messageText, selectHistory, toPlainMessages } from "@/lib/agent/memory";
import { pickModel } from "@/lib/agent/models";
import { ownerIdOf } from "@/lib/auth/principal";
import { questionDocuments, scopeKbs } from "@/lib/auth/scope";
import { getConfig } from "@/lib/config";
import { getAnswers } from "@/lib/conversations/answers";
import type { StoredMessage } from "@/lib/conversations/schema";
import { knownKbs } from "@/lib/kb/known";
import { instructionsFor } from "@/lib/kb/names";
import { MAX_QUESTION_CHARS } from "@/lib/limits";
import { route } from "@/lib/server/route";
import { AppError } from "@/lib/types";
import { chatRequestSchema } from "./schema";

export const dynamic = "force-dynamic";
export const maxDuration = 120;

/** The app's own MCP endpoint: where server.mjs listens, never derived from the client's Host header. */
function ownMcpUrl(req: Request): string {
  return new URL("/api/mcp", process.env.KB_INTERNAL_ORIGIN || req.url).toString();
}

// The chat searches with the internal MCP secret, so it needs the web app's own access check (route()).
export const POST = route({}, async ({ req, body, store, registry, principal }) => {
  const data = await body(chatRequestSchema);
  const last = data.messages.at(-1)!;
  const question = messageText(last);
  if (last.role !== "user" || !question) {
    throw new AppError("bad_request", "The last message must be a question from the user.");
  }
  if (question.length > MAX_QUESTION_CHARS) {
    throw new AppError("bad_request", `The question is longer than ${MAX_QUESTION_CHARS} characters.`);
  }
  const config = getConfig().chat;
  const messages = selectHistory(toPlainMessages(data.messages), { maxTurns: config.historyTurns, maxChars: config.historyChars });
  const mcpUrl = config.mcpUrl ?? ownMcpUrl(req);
  // A person's chat searches only what they may read: the MCP calls carry that scope (X-KB-Filter).
  const kbs = await scopeKbs(principal, await store(), await registry(), data.kbs);
  const modelId = await pickModel(config, data.model);
  // An attachment is searched only by its owner's questions (the MCP tools honour an attachment the chat names).
  const documents = await questionDocuments(principal, await store(), data.documents);
  const instructions = config.apiKey ? instructionsFor(await (await registry()).listKbs(), kbs) : undefined;
  // The answer is kept as streamed, with the knowledge bases it drew on: what a save of the conversation stores.
  const messageId = randomUUID();
  const answer = (await getAnswers(await store())).begin(messageId, ownerIdOf(principal), question);
  const response = await runChat({
    messageId,
    // A result whose knowledge bases cannot be told counts as drawing on every one this chat could reach.
    onAnswer: async ({ message, kbs: drawn, unattributed }) =>
      answer.record(
        message as unknown as StoredMessage,
        unattributed ? [...new Set([...drawn, ...(kbs ?? (await knownKbs(await store(), await registry())))])] : drawn,
      ),
    config,
    messages,
    mcpUrl,
    kbs,
    documents,
    signal: req.signal,
    avoid: data.avoid,
    modelId,
    instructions,
    locale: data.locale,
  }).catch((err) => {
    answer.abandon();
    throw err;
  });
  // No answer streams when the chat could not start (its MCP endpoint is down): nothing to wait for.
  if (!response.ok) answer.abandon();
  return response;
});
