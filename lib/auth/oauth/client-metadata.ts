/**
 * Client ID metadata documents (MCP authorization 2025-11-25, draft-ietf-oauth-client-id-metadata-document):
 * a client_id that is an HTTPS URL names a JSON document the server fetches. The fetch is a request to a
 * URL an anonymous caller chose, so: https only, every address the name resolves to must be public (not
 * private, loopback, link-local, CGNAT, multicast or reserved) and the connection goes to the address that
 * was checked (no second lookup to rebind), no redirects, at most 5 KB within 5 s, cached five minutes.
 * OAUTH_ALLOW_PRIVATE_CLIENT_URLS=1 (tests) lifts the address rule and allows http.
 */
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { type OAuthClientMetadata, OAuthClientMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import { guardedLookup, isPrivateAddress } from "@/lib/net/public-address";
import { acceptableRedirect, REDIRECT_RULE } from "./redirects";

const MAX_CLIENT_METADATA_BYTES = 5 * 1024;
const TIMEOUT_MS = 5000;
const CACHE_MS = 5 * 60_000;
const CACHE_MAX = 500;

function allowPrivate(): boolean {
  return process.env.OAUTH_ALLOW_PRIVATE_CLIENT_URLS === "1";
}

/** Whether a client_id names a metadata document (an https URL; http too under the test flag). */
export function isClientIdUrl(clientId: string): boolean {
  return clientId.startsWith("https://") || (allowPrivate() && clientId.startsWith("http://"));
}

export class ClientMetadataError extends Error {}

/**
 * The body of a GET under the rules above, at most `maxBytes` (refused up front when the Content-Length says
 * more). `what` names the document in errors. Resolver and connection errors are logged, never passed on: an
 * error page would otherwise tell an anonymous caller what this server's network answers.
 */
export function fetchPublicDocument(url: URL, what: string, maxBytes = MAX_CLIENT_METADATA_BYTES): Promise<Buffer> {
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(literal) && !allowPrivate() && isPrivateAddress(literal)) {
    return Promise.reject(new ClientMetadataError(`${url.hostname} is not a public address`));
  }
  const tooLarge = () => new ClientMetadataError(`the ${what} is larger than ${maxBytes} bytes`);
  const slow = () => new ClientMetadataError(`the ${what} took longer than ${TIMEOUT_MS / 1000} s`);
  const lib = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      // The address rule's refusal is our own sentence; anything else from the resolver or socket is only logged.
      if ((err as NodeJS.ErrnoException).code === "EPRIVATE") err = new ClientMetadataError(err.message);
      if (!(err instanceof ClientMetadataError)) console.warn(`[oauth] could not fetch ${url.href}: ${err.message}`);
      reject(err instanceof ClientMetadataError ? err : new ClientMetadataError(`the ${what} could not be fetched`));
      req.destroy();
    };
    const req = lib.get(
      url,
      {
        headers: { accept: "application/json" },
        timeout: TIMEOUT_MS,
        ...(allowPrivate() ? {} : { lookup: guardedLookup() }),
      },
      (res) => {
        res.on("error", fail);
        if (res.statusCode !== 200) return fail(new ClientMetadataError(`the ${what} answered HTTP ${res.statusCode}`));
        if (Number(res.headers["content-length"] ?? 0) > maxBytes) return fail(tooLarge());
        const parts: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          size += c.length;
          if (size > maxBytes) fail(tooLarge());
          else parts.push(c);
        });
        res.on("end", () => {
          if (settled) return;
          settled = true;
          resolve(Buffer.concat(parts));
        });
      },
    );
    const deadline = setTimeout(() => fail(slow()), TIMEOUT_MS);
    req.on("close", () => clearTimeout(deadline));
    req.on("timeout", () => fail(slow()));
    req.on("error", fail);
  });
}

const cache = new Map<string, { at: number; value: Promise<OAuthClientMetadata> }>();

/** The validated metadata document of a URL client_id (its client_id must be that URL); throws ClientMetadataError. */
export function fetchClientMetadata(clientId: string, now = Date.now()): Promise<OAuthClientMetadata> {
  const hit = cache.get(clientId);
  if (hit && now - hit.at < CACHE_MS) return hit.value;
  const value = load(clientId);
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(clientId, { at: now, value });
  value.catch(() => {
    if (cache.get(clientId)?.value === value) cache.delete(clientId);
  });
  return value;
}

async function load(clientId: string): Promise<OAuthClientMetadata> {
  const url = URL.parse(clientId);
  if (!url) throw new ClientMetadataError("client_id is not a URL");
  if (!isClientIdUrl(clientId) || url.username || url.password || url.hash || url.pathname === "/") {
    throw new ClientMetadataError("a client_id URL must be https, with a path, without credentials or a fragment");
  }
  const body = await fetchPublicDocument(url, "client metadata document");
  let json: unknown;
  try {
    json = JSON.parse(body.toString("utf8"));
  } catch {
    throw new ClientMetadataError("the client metadata document is not JSON");
  }
  const parsed = OAuthClientMetadataSchema.safeParse(json);
  if (!parsed.success) throw new ClientMetadataError(`the client metadata document is invalid: ${parsed.error.issues[0]?.message}`);
  if ((json as { client_id?: unknown }).client_id !== clientId) {
    throw new ClientMetadataError("the client metadata document's client_id is not its URL");
  }
  if (!parsed.data.redirect_uris.length || !parsed.data.redirect_uris.every(acceptableRedirect)) {
    throw new ClientMetadataError(`the client metadata document's redirect_uris: ${REDIRECT_RULE}`);
  }
  return parsed.data;
}
