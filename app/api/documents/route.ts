import { getReadyStore } from "@/lib/server/startup";
import {
  checkContentLength,
  checkUploadLimits,
  ingestUploads,
  toErrorBody,
  uploadLimits,
  type UploadEvent,
  type UploadFile,
  type UploadFileResult,
} from "@/lib/ingest/upload";
import { AppError } from "@/lib/types";
import { checkManagementAccess, checkReadAccess, errorResponse, NO_STORE } from "@/lib/auth/admin";
import { listQuerySchema, uploadFieldsSchema } from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/documents?kb=&q= — the library, newest first. */
export async function GET(request: Request): Promise<Response> {
  try {
    const denied = checkReadAccess(request);
    if (denied) throw denied;
    const params = new URL(request.url).searchParams;
    const { kb, q } = listQuerySchema.parse({ kb: params.get("kb") ?? undefined, q: params.get("q") ?? undefined });
    const store = await getReadyStore();
    let documents = await store.listDocuments(kb ? { kb } : undefined);
    if (q) {
      const needle = q.toLowerCase();
      documents = documents.filter((d) => d.title.toLowerCase().includes(needle) || d.source.toLowerCase().includes(needle));
    }
    documents.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    return Response.json({ documents }, { headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}

/**
 * POST /api/documents (multipart: `files`…, optional `kb`, `title`, `author`, `tags`). With
 * `Accept: application/x-ndjson` it streams one JSON event per line (progress per file, a result per
 * file, then a summary); otherwise it answers with the summary once all files are done.
 */
export async function POST(request: Request): Promise<Response> {
  let files: UploadFile[];
  let fields: ReturnType<typeof uploadFieldsSchema.parse>;
  try {
    const denied = checkManagementAccess(request);
    if (denied) throw denied;
    const limits = uploadLimits();
    checkContentLength(request.headers.get("content-length"), limits);
    if (!/^multipart\/form-data/i.test(request.headers.get("content-type") ?? "")) {
      throw new AppError("bad_request", "Send the files as multipart/form-data in the field \"files\".", 400);
    }
    let form: FormData;
    try {
      form = await request.formData();
    } catch {
      throw new AppError("bad_request", "The request body is not valid multipart/form-data.", 400);
    }
    const uploads = form.getAll("files").filter((v): v is File => typeof v !== "string");
    checkUploadLimits(uploads, limits);
    const text = (name: string) => {
      const v = form.get(name);
      return typeof v === "string" ? v : undefined;
    };
    fields = uploadFieldsSchema.parse({
      kb: text("kb"),
      title: text("title"),
      author: text("author"),
      tags: form.getAll("tags").filter((v): v is string => typeof v === "string"),
    });
    if (fields.title && uploads.length > 1) {
      throw new AppError("bad_request", "A title can only be given when uploading a single file.", 400);
    }
    files = await Promise.all(uploads.map(async (f) => ({ name: f.name, data: new Uint8Array(await f.arrayBuffer()) })));
  } catch (err) {
    return errorResponse(err);
  }

  let store: Awaited<ReturnType<typeof getReadyStore>>;
  try {
    store = await getReadyStore();
  } catch (err) {
    return errorResponse(err);
  }
  const run = (onEvent?: (e: UploadEvent) => void) =>
    ingestUploads(store, files, fields, { onEvent, signal: request.signal });

  if ((request.headers.get("accept") ?? "").includes("application/x-ndjson")) {
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
      headers: { "Cache-Control": "no-store, no-transform", "Content-Type": "application/x-ndjson; charset=utf-8", "X-Accel-Buffering": "no" },
    });
  }

  const results = await run();
  return Response.json({ results }, { status: summaryStatus(results), headers: NO_STORE });
}

/** 200 when any file got in (or was already there); otherwise the first failure's status. */
function summaryStatus(results: UploadFileResult[]): number {
  if (results.some((r) => r.status !== "failed" && r.status !== "cancelled")) return 200;
  const code = results[0]?.error?.code;
  return { unsupported_type: 415, too_large: 413, parse_failed: 422, bad_request: 400, cancelled: 499 }[code ?? ""] ?? 500;
}
