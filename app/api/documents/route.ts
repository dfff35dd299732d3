import { limitOfPrincipal, mayReadKb, requireKbAccess } from "@/lib/auth/principal";
import { newAttachmentKb } from "@/lib/auth/scope";
import { getConfig } from "@/lib/config";
import { ingestUploads, receiveUpload, toErrorBody, type UploadEvent, type UploadFileResult, uploadLimits } from "@/lib/ingest/upload";
import { route } from "@/lib/server/route";
import { sourceNamesOf } from "@/lib/sources/service";
import { AppError, ERROR_STATUS, type ErrorCode } from "@/lib/types";
import { listQuerySchema, uploadFieldsSchema } from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/documents?kb=&q= — the library, newest first; a document a source brought in names it (`sourceName`). */
export const GET = route({}, async ({ req, store, principal }) => {
  const params = new URL(req.url).searchParams;
  const { kb, q } = listQuerySchema.parse({ kb: params.get("kb") ?? undefined, q: params.get("q") ?? undefined });
  if (kb) requireKbAccess(principal, kb, false);
  const readable = mayReadKb(principal);
  let documents = (await (await store()).listDocuments(kb ? { kb } : undefined)).filter((d) => readable(d.kb));
  if (q) {
    const needle = q.toLowerCase();
    documents = documents.filter((d) => d.title.toLowerCase().includes(needle) || d.source.toLowerCase().includes(needle));
  }
  documents.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  const fromSource = await sourceNamesOf(
    await store(),
    documents.filter((d) => d.origin === "source").map((d) => d.id),
  );
  return { documents: documents.map((d) => (fromSource.has(d.id) ? { ...d, sourceName: fromSource.get(d.id) } : d)) };
});

/**
 * POST /api/documents (multipart: `files`…, optional `kb`, `title`, `author`, `tags`), read as a stream
 * with the limits enforced while reading. With `Accept: application/x-ndjson` it streams one JSON event per
 * line (progress per file, a result per file, then a summary); otherwise it answers with the summary.
 */
export const POST = route({}, async ({ req, store, principal, audit }) => {
  // A reader is refused before a byte of the files is read.
  if (!limitOfPrincipal(principal).write) throw new AppError("forbidden", "You may not upload documents.");
  const { files, fields: form } = await receiveUpload(req, uploadLimits());
  const fields = uploadFieldsSchema.parse({
    kb: form.kb?.[0],
    attach: form.attach?.[0],
    title: form.title?.[0],
    author: form.author?.[0],
    tags: form.tags ?? [],
  });
  // A file attached to a question goes into a knowledge base of its own that only its owner reads (lib/auth/scope.ts).
  const kb = fields.attach ? newAttachmentKb(principal) : (fields.kb ?? getConfig().defaultKb);
  if (fields.attach && fields.kb)
    throw new AppError("bad_request", "A file attached to a question goes into no knowledge base: leave out kb.");
  if (!fields.attach) requireKbAccess(principal, kb, true);
  if (fields.title && files.length > 1) throw new AppError("bad_request", "A title can only be given when uploading a single file.");
  const ready = await store();
  const run = async (onEvent?: (e: UploadEvent) => void) => {
    const results = await ingestUploads(ready, files, { ...fields, kb }, { onEvent, signal: req.signal });
    for (const r of results) {
      const outcome = r.status === "failed" ? "failed" : "ok";
      if (r.status !== "unchanged")
        await audit("document_upload", { kb, target: r.documentId ?? null, detail: `${r.name}: ${r.status}`, outcome });
    }
    return results;
  };

  if (!(req.headers.get("accept") ?? "").includes("application/x-ndjson")) {
    const results = await run();
    return Response.json({ results }, { status: summaryStatus(results), headers: { "Cache-Control": "no-store" } });
  }
  const encoder = new TextEncoder();
  let open = true;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (e: UploadEvent) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(`${JSON.stringify(e)}\n`));
        } catch {
          open = false;
        }
      };
      run(send)
        .catch((err) => send({ type: "error", error: toErrorBody(err) }))
        .finally(() => {
          if (open) controller.close();
          open = false;
        });
    },
    cancel() {
      open = false;
    },
  });
  return new Response(stream, {
    // no-transform: compression would hold the progress lines back until the end
    headers: {
      "Cache-Control": "no-store, no-transform",
      "Content-Type": "application/x-ndjson; charset=utf-8",
      "X-Accel-Buffering": "no",
    },
  });
});

/** 200 when any file got in (or was already there); otherwise the first failure's status. */
function summaryStatus(results: UploadFileResult[]): number {
  if (results.some((r) => r.status !== "failed" && r.status !== "cancelled")) return 200;
  const code = results[0]?.error?.code ?? "internal";
  return code in ERROR_STATUS ? ERROR_STATUS[code as ErrorCode] : 500;
}
