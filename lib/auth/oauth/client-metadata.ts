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

function get(url: URL): Promise<Buffer> {
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(literal) && !allowPrivate() && isPrivateAddress(literal)) {
    return Promise.reject(new ClientMetadataError(`${url.hostname} is not a public address`));
  }
  const lib = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.get(
      url,
      {
        headers: { accept: "application/json" },
        timeout: TIMEOUT_MS,
        ...(allowPrivate() ? {} : { lookup: guardedLookup() }),
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new ClientMetadataError(`the client metadata document answered HTTP ${res.statusCode}`));
          return;
        }
        const parts: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          size += c.length;
          if (size > MAX_CLIENT_METADATA_BYTES) {
            req.destroy(new ClientMetadataError(`the client metadata document is larger than ${MAX_CLIENT_METADATA_BYTES} bytes`));
            return;
          }
          parts.push(c);
        });
        res.on("end", () => resolve(Buffer.concat(parts)));
        res.on("error", reject);
      },
    );
    const deadline = setTimeout(
      () => req.destroy(new ClientMetadataError("the client metadata document took longer than 5 s")),
      TIMEOUT_MS,
    );
    req.on("close", () => clearTimeout(deadline));
    req.on("timeout", () => req.destroy(new ClientMetadataError("the client metadata document took longer than 5 s")));
    req.on("error", (err) =>
      reject(err instanceof ClientMetadataError ? err : new ClientMetadataError(`could not fetch it: ${err.message}`)),
    );
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
  const body = await get(url);
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
  return parsed.data;
}
