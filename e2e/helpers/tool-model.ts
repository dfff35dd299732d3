/**
 * A fake OpenAI-compatible model that calls the tool it is told to: a question "call <tool> <JSON arguments>"
 * gets that tool call (streamed in the Chat Completions wire format), and once the turn holds the tool's result
 * the answer repeats what it read, as a model quoting a document does. A question starting "slow" is answered
 * one word every 50 ms for a minute, until the app goes away (Stop). Anything else is answered with the question
 * itself (the app's decomposition and follow-up requests).
 */
import http from "node:http";

interface Message {
  role: string;
  content?: string | { type: string; text?: string }[] | null;
}

const textOf = (c: Message["content"]) => (typeof c === "string" ? c : (c ?? []).map((p) => p.text ?? "").join(""));

function reply(res: http.ServerResponse, stream: boolean, out: { text: string } | { tool: string; args: string }) {
  const base = { id: "chatcmpl-tool", created: Math.floor(Date.now() / 1000), model: "tool-model" };
  const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
  const call = "tool" in out ? [{ id: "call_1", type: "function", function: { name: out.tool, arguments: out.args } }] : undefined;
  if (!stream) {
    res.writeHead(200, { "content-type": "application/json" });
    const message = call
      ? { role: "assistant", content: null, tool_calls: call }
      : { role: "assistant", content: (out as { text: string }).text };
    res.end(
      JSON.stringify({
        ...base,
        object: "chat.completion",
        choices: [{ index: 0, message, finish_reason: call ? "tool_calls" : "stop" }],
        usage,
      }),
    );
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream" });
  const send = (delta: object, finish: string | null) =>
    res.write(
      `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
    );
  if (call) send({ role: "assistant", content: null, tool_calls: [{ index: 0, ...call[0] }] }, null);
  else send({ role: "assistant", content: (out as { text: string }).text }, null);
  send({}, call ? "tool_calls" : "stop");
  res.write(`data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [], usage })}\n\n`);
  res.end("data: [DONE]\n\n");
}

/** Streams one word every 50 ms until the client goes away (or 1,200 words). */
function slowReply(res: http.ServerResponse) {
  const base = { id: "chatcmpl-slow", object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: "tool-model" };
  res.writeHead(200, { "content-type": "text/event-stream" });
  let sent = 0;
  const timer = setInterval(() => {
    if (res.destroyed || sent >= 1200) {
      clearInterval(timer);
      if (!res.destroyed) res.end("data: [DONE]\n\n");
      return;
    }
    const delta = sent++ === 0 ? { role: "assistant", content: "Slowly " } : { content: "more " };
    res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
  }, 50);
  res.on("close", () => clearInterval(timer));
}

export async function startToolModel(port: number): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(async (req, res) => {
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ object: "list", data: [{ id: "tool-model", object: "model", created: 0, owned_by: "test" }] }));
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
      stream?: boolean;
      messages: Message[];
      tools?: { function: { name: string } }[];
      tool_choice?: unknown;
    };
    const lastUser = body.messages.map((m) => m.role).lastIndexOf("user");
    const question = textOf(body.messages[lastUser]?.content).trim();
    const read = body.messages.slice(lastUser + 1).filter((m) => m.role === "tool");
    const tools = (body.tools ?? []).map((t) => t.function.name);
    if (body.stream && /^slow\b/.test(question)) return slowReply(res);
    const asked = /^call (\S+) (\{.*\})$/s.exec(question);
    // "search_kb:<name>": the search tool of one knowledge base, whatever its slug.
    const tool = asked?.[1].startsWith("search_kb:") ? tools.find((t) => t.startsWith(`search_${asked[1].slice(10)}`)) : asked?.[1];
    if (asked && tool && tools.includes(tool) && body.tool_choice !== "none" && read.length === 0)
      return reply(res, !!body.stream, { tool, args: asked[2] });
    reply(res, !!body.stream, { text: read.length ? `I read: ${read.map((m) => textOf(m.content)).join(" ")}` : question });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
