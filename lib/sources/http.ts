/**
 * HTTP for sources: the public-address rule of lib/net/public-address.ts (the socket connects to the address
 * that was checked), lifted only for hosts an admin lists in SOURCE_ALLOW_HOSTS; redirects followed by hand so
 * that each hop is checked again; size and time limits.
 */
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { sourceLimits } from "@/lib/config";
import { guardedLookup, isPrivateAddress, resolvesPublic } from "@/lib/net/public-address";

const TIMEOUT_MS = 30_000;
const MAX_REDIRECTS = 5;
const USER_AGENT = "kb-mcp-chat-sources/1.0";

export class FetchRefused extends Error {}

/** Why an item is not read: over SOURCE_MAX_BYTES (named, so an admin knows what to raise). */
export function overLimit(size: number | null, maxBytes: number): string {
  return `${size === null ? "larger" : `${size} bytes, larger`} than the limit of ${maxBytes} bytes (SOURCE_MAX_BYTES)`;
}

/** Hosts an admin allows though they are private (SOURCE_ALLOW_HOSTS, comma-separated host names or addresses). */
function allowedHosts(): Set<string> {
  return new Set(
    (process.env.SOURCE_ALLOW_HOSTS ?? "")
      .split(",")
      .map((h) =>
        h
          .trim()
          .toLowerCase()
          .replace(/^\[|\]$/g, ""),
      )
      .filter(Boolean),
  );
}
export const hostAllowed = (host: string) => allowedHosts().has(host.toLowerCase().replace(/^\[|\]$/g, ""));

/** Throws FetchRefused when `url` may not be fetched at all (scheme, credentials, a private literal address). */
function checkFetchable(url: URL): void {
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new FetchRefused(`${url.protocol} URLs are not fetched`);
  if (url.username || url.password) throw new FetchRefused("URLs with credentials are not fetched");
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(literal) && isPrivateAddress(literal) && !hostAllowed(literal))
    throw new FetchRefused(`${url.hostname} is not a public address (an admin can allow it in SOURCE_ALLOW_HOSTS)`);
}

/**
 * Throws FetchRefused when a source's `url` would be refused at sync: checked when the source is added, so a
 * private address is refused there rather than failing every sync.
 */
export async function checkSourceUrl(url: URL): Promise<void> {
  checkFetchable(url);
  if (!hostAllowed(url.hostname) && !(await resolvesPublic(url.hostname)))
    throw new FetchRefused(`${url.hostname} is not a public address (an admin can allow it in SOURCE_ALLOW_HOSTS)`);
}

export interface FetchedResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The URL that answered, after redirects. */
  url: URL;
}

interface GetOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  maxBytes?: number;
  /** May a redirect go there? (A crawl stays within its prefix.) */
  followTo?: (url: URL) => boolean;
  /** Stops the request (the sync was cancelled or ran out of time). */
  signal?: AbortSignal;
}

/** One request under the rule; 3xx followed (each hop checked) up to MAX_REDIRECTS. */
export async function guardedRequest(start: URL, opts: GetOptions = {}): Promise<FetchedResponse> {
  let url = start;
  for (let hop = 0; ; hop++) {
    const res = await once(url, opts);
    const location = res.headers.location;
    if (res.status >= 300 && res.status < 400 && res.status !== 304 && location) {
      if (hop >= MAX_REDIRECTS) throw new FetchRefused(`more than ${MAX_REDIRECTS} redirects`);
      const next = new URL(location, url);
      if (opts.followTo && !opts.followTo(next)) throw new FetchRefused(`redirected outside the source to ${next.href}`);
      url = next;
      continue;
    }
    return { ...res, url };
  }
}

function once(url: URL, opts: GetOptions): Promise<Omit<FetchedResponse, "url">> {
  checkFetchable(url);
  opts.signal?.throwIfAborted();
  const maxBytes = opts.maxBytes ?? sourceLimits().maxBytes;
  const lib = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      url,
      {
        method: opts.method ?? "GET",
        // A body goes with its length: some servers (PHP's) read no chunked request body.
        headers: {
          "user-agent": USER_AGENT,
          ...(opts.body !== undefined ? { "content-length": String(Buffer.byteLength(opts.body)) } : {}),
          ...opts.headers,
        },
        timeout: TIMEOUT_MS,
        lookup: guardedLookup(hostAllowed),
        signal: opts.signal,
      },
      (res) => {
        const parts: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          size += c.length;
          if (size > maxBytes) {
            // Destroyed without an error: one given to req.destroy once the whole answer has arrived is emitted
            // on the socket, where nothing listens, and would end the process. The answer may still 'end' after.
            reject(new FetchRefused(overLimit(null, maxBytes)));
            res.destroy();
            return;
          }
          parts.push(c);
        });
        res.on("end", () => {
          if (size <= maxBytes) resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) });
        });
        res.on("error", reject);
      },
    );
    const deadline = setTimeout(() => req.destroy(new FetchRefused(`no answer within ${TIMEOUT_MS / 1000} s`)), TIMEOUT_MS);
    req.on("close", () => clearTimeout(deadline));
    req.on("timeout", () => req.destroy(new FetchRefused(`no answer within ${TIMEOUT_MS / 1000} s`)));
    req.on("error", (err) => reject((err as { code?: string }).code === "EPRIVATE" ? new FetchRefused(err.message) : err));
    req.end(opts.body);
  });
}

/** Retries of one request a service answered 429 or 503; the longest Retry-After waited for. */
const MAX_RETRIES = 3;
const MAX_RETRY_WAIT_MS = 60_000;

/** Retry-After in milliseconds: delta-seconds or an HTTP date; null when absent or unreadable. */
function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  if (/^\s*\d+\s*$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}

/** Feishu/Lark's gateway says when its rate window resets instead (x-ogw-ratelimit-reset: seconds, maybe fractional). */
function resetMs(value: string | string[] | undefined): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  return v && /^\s*\d+(\.\d+)?\s*$/.test(v) ? Math.ceil(Number(v) * 1000) : null;
}

/**
 * guardedRequest, waiting as a busy service asks: a 429 or 503 is tried again after its Retry-After (or
 * x-ogw-ratelimit-reset; 1 s without either), up to MAX_RETRIES times; one that asks for more than a minute, or is still busy after the retries, is
 * answered as it is (the caller fails with its status). The wait ends when the sync is cancelled.
 */
export async function patientRequest(url: URL, opts: GetOptions = {}): Promise<FetchedResponse & { retries: number }> {
  for (let retries = 0; ; retries++) {
    const res = await guardedRequest(url, opts);
    if ((res.status !== 429 && res.status !== 503) || retries >= MAX_RETRIES) return { ...res, retries };
    const wait = retryAfterMs(res.headers["retry-after"]) ?? resetMs(res.headers["x-ogw-ratelimit-reset"]) ?? 1000;
    if (wait > MAX_RETRY_WAIT_MS) return { ...res, retries };
    await sleep(wait, undefined, { signal: opts.signal });
  }
}

/**
 * The address to connect to for a source that is no URL fetch (an IMAP server): the name resolved once, under the
 * public-address rule (SOURCE_ALLOW_HOSTS lifts it), so the socket goes to the address that was checked.
 */
export async function resolveSourceHost(host: string): Promise<string> {
  const bare = host.replace(/^\[|\]$/g, "");
  if (isIP(bare)) {
    if (isPrivateAddress(bare) && !hostAllowed(bare))
      throw new FetchRefused(`${bare} is not a public address (an admin can allow it in SOURCE_ALLOW_HOSTS)`);
    return bare;
  }
  return new Promise((resolve, reject) =>
    guardedLookup(hostAllowed)(bare, {}, (err, address) => {
      if (!err) resolve(String(address));
      else if ((err as { code?: string }).code === "EPRIVATE")
        reject(new FetchRefused(`${bare} is not a public address (an admin can allow it in SOURCE_ALLOW_HOSTS)`));
      else reject(new FetchRefused(`${bare} could not be resolved (${(err as { code?: string }).code ?? err.message})`));
    }),
  );
}
