/**
 * The one `fetch` the hosted services' official SDKs (Notion, Confluence, Google Drive, Microsoft Graph, Feishu/Lark)
 * are given: every request they make goes through ./http.ts (public-address rule, each redirect hop checked and
 * kept to the origins the source allows, the answer's size capped while it is read, 429/503 waited out as
 * Retry-After says, cancelled with the sync). An SDK never opens a socket of its own.
 */
import type { SyncContext } from "./engine";
import { patientRequest } from "./http";

/** What a request's body may be when an SDK hands it over (strings, bytes, forms). */
async function bodyBytes(init: RequestInit | undefined, request: Request | null): Promise<Buffer | undefined> {
  const body = init?.body ?? (request?.body ? await request.arrayBuffer() : undefined);
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return Buffer.from(await new Response(body as BodyInit).arrayBuffer());
}

function headersOf(init: RequestInit | undefined, request: Request | null): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(request?.headers).forEach((v, k) => {
    out[k] = v;
  });
  new Headers(init?.headers).forEach((v, k) => {
    out[k] = v;
  });
  return out;
}

export interface SdkFetchOptions {
  /** Origins a request or redirect may go to (the service's API and, for downloads, its file host). */
  origins: readonly string[];
  /** The largest answer read; a file download is capped at the source's SOURCE_MAX_BYTES. */
  maxBytes?: number;
  /** Counts each request made (for a sync's note and the tests). */
  onRequest?: (url: URL) => void;
}

/**
 * A WHATWG `fetch` for an SDK's options (`fetch`, `fetchImplementation`, axios' `env.fetch`): answers are whole
 * `Response`s read under the limits above; a request to an origin outside `origins` is refused before it is sent.
 */
export function sdkFetch(ctx: Pick<SyncContext, "signal" | "maxBytes">, opts: SdkFetchOptions): typeof fetch {
  const allowed = new Set(opts.origins.map((o) => new URL(o).origin));
  const call = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : null;
    const url = new URL(request ? request.url : String(input));
    if (!allowed.has(url.origin)) throw new TypeError(`${url.origin} is not this source's service`);
    opts.onRequest?.(url);
    const res = await patientRequest(url, {
      method: init?.method ?? request?.method ?? "GET",
      headers: headersOf(init, request),
      body: await bodyBytes(init, request),
      maxBytes: opts.maxBytes ?? ctx.maxBytes,
      followTo: (u) => allowed.has(u.origin),
      signal: ctx.signal,
    });
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined) continue;
      for (const one of [v].flat()) headers.append(k, one);
    }
    const empty = res.status === 204 || res.status === 304 || (init?.method ?? request?.method) === "HEAD";
    return new Response(empty ? null : new Uint8Array(res.body), { status: res.status, headers });
  };
  return call as typeof fetch;
}
