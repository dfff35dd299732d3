import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { SourceView } from "@/lib/sources/schema";
import { listSourceViews } from "@/lib/sources/service";
import { TOOL } from "@/lib/tools/names";
import { READ_ONLY } from "./annotations";
import { kbArgument, type ToolContext, toolResult } from "./context";
import { registerReadTool } from "./register";

const name = TOOL.listSources;

const inputSchema = z.strictObject({ kb: kbArgument(undefined, "Only this knowledge base's sources. Omit to list all.") });

const config = {
  title: "List sources",
  description:
    "List the web sites, Git repositories, buckets, folders and WebDAV drives the knowledge bases are kept in sync with: each one's " +
    "settings (never its secrets), schedule, document count, and last sync (added, updated, removed, failed with reasons).",
  input: inputSchema,
  annotations: READ_ONLY,
};

function line(s: SourceView): string {
  const r = s.lastRun;
  const status = s.running
    ? `syncing (${s.running.done} done)`
    : r
      ? `last sync ${r.finishedAt}: ${r.error ? `failed: ${r.error}` : `${r.added} added, ${r.updated} updated, ${r.removed} removed, ${r.failed.length} failed`}`
      : "never synced";
  return `- ${s.name} [${s.kind}, kb ${s.kb}, id ${s.id}]: ${s.documents} documents; ${status}`;
}

export function registerListSources(server: McpServer, ctx: ToolContext) {
  registerReadTool(server, ctx, name, config, async (_args, { kb, store }) => {
    const kbs = typeof kb === "string" ? [kb] : (kb ?? (await store.listKbs()));
    const sources = (await Promise.all(kbs.map((k) => listSourceViews(store, k)))).flat();
    return toolResult(sources.length ? sources.map(line).join("\n") : "No sources.", { sources });
  });
}
