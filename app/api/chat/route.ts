import { checkReadAccess, errorResponse as accessDenied } from "@/lib/auth/admin";
import { getConfig } from "@/lib/config";
import { errorResponse, runChat } from "@/lib/agent/chat";
import { messageText, selectHistory, toPlainMessages } from "@/lib/agent/memory";
import { chatRequestSchema, MAX_QUESTION_CHARS } from "./schema";

export const dynamic = "force-dynamic";
export const maxDuration = 120;

export async function POST(req: Request): Promise<Response> {
  // The chat searches with the internal MCP secret, so it needs the web app's own access check.
  const denied = checkReadAccess(req);
  if (denied) return accessDenied(denied);
  let body: unknown;
  try {
    body = await req.json();
  } catch {
    return errorResponse({ code: "bad_request", message: "The request body must be JSON." }, 400);
  }
  const parsed = chatRequestSchema.safeParse(body);
  if (!parsed.success) {
    return errorResponse({ code: "bad_request", message: "Invalid chat request.", detail: parsed.error.issues[0]?.message }, 400);
  }
  const last = parsed.data.messages.at(-1)!;
  const question = messageText(last);
  if (last.role !== "user" || !question) {
    return errorResponse({ code: "bad_request", message: "The last message must be a question from the user." }, 400);
  }
  if (question.length > MAX_QUESTION_CHARS) {
    return errorResponse({ code: "bad_request", message: `The question is longer than ${MAX_QUESTION_CHARS} characters.` }, 400);
  }

  const config = getConfig().chat;
  const messages = selectHistory(toPlainMessages(parsed.data.messages), {
    maxTurns: config.historyTurns,
    maxChars: config.historyChars,
  });
  const mcpUrl = config.mcpUrl ?? new URL("/api/mcp", req.url).toString();
  return runChat({ config, messages, mcpUrl, kbs: parsed.data.kbs, signal: req.signal });
}
