/**
 * Client ID metadata documents (MCP authorization 2025-11-25, draft-ietf-oauth-client-id-metadata-document):
 * a client_id that is an HTTPS URL names a JSON document the server fetches. The fetch is a request to a
 * URL an anonymous caller chose, so: https only, every address the name resolves to must be public (not
 * private, loopback, link-local, CGNAT, multicast or reserved) and the connection goes to the address that
 * was checked (no second lookup to rebind), no redirects, at most 5 KB within 5 s, cached five minutes.
 * OAUTH_ALLOW_PRIVATE_CLIENT_URLS=1 (tests) lifts the address rule and allows http.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { type OAuthClientMetadata, OAuthClientMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import { acceptableRedirect, REDIRECT_RULE } from "./redirects";

const MAX_CLIENT_METADATA_BYTES = 5 * 1024;
const TIMEOUT_MS = 5000;
const CACHE_MS = 5 * 60_000;
const CACHE_MAX = 500;

const blocked = (() => {
  const list = new BlockList();
  for (const [net, bits] of [
    ["0.0.0.0", 8],
    ["10.0.0.0", 8],
    ["100.64.0.0", 10],
    ["127.0.0.0", 8],
    ["169.254.0.0", 16],
    ["172.16.0.0", 12],
    ["192.0.0.0", 24],
    ["192.0.2.0", 24],
    ["192.168.0.0", 16],
    ["198.18.0.0", 15],
    ["198.51.100.0", 24],
    ["203.0.113.0", 24],
    ["224.0.0.0", 4],
    ["240.0.0.0", 4],
  ] as const)
    list.addSubnet(net, bits, "ipv4");
  // IPv4-mapped ::ffff:0:0/96 is not listed: BlockList would then match every IPv4 address (embeddedIPv4 checks it).
  for (const [net, bits] of [
    ["::", 96],
    ["64:ff9b:1::", 48],
    ["100::", 64],
    ["2001::", 23],
    ["2001:db8::", 32],
    ["3fff::", 20],
    ["5f00::", 16],
    ["fc00::", 7],
    ["fe80::", 10],
    ["fec0::", 10],
    ["ff00::", 8],
  ] as const)
    list.addSubnet(net, bits, "ipv6");
  return list;
})();

/** An IPv6 address's eight 16-bit groups (a dotted IPv4 tail as two), or null. */
function hextets(a: string): number[] | null {
  let text = a.toLowerCase().replace(/%.*$/, "");
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [b0, b1, b2, b3] = v4.slice(1).map(Number);
    text = `${text.slice(0, v4.index)}${((b0 << 8) | b1).toString(16)}:${((b2 << 8) | b3).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, null];
  const part = (s: string) => (s ? s.split(":").map((h) => Number.parseInt(h, 16)) : []);
  const left = part(head);
  const right = tail === null ? [] : part(tail);
  const groups = tail === null ? left : [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

const dotted = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

/**
 * The IPv4 address an IPv6 address carries, where it carries one that a router or the host may act on:
 * IPv4-compatible (::/96), IPv4-mapped (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96), NAT64
 * (64:ff9b::/96) and 6to4 (2002::/16).
 */
function embeddedIPv4(g: number[]): string | null {
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeros(6) || (zeros(5) && g[5] === 0xffff) || (zeros(4) && g[4] === 0xffff && g[5] === 0)) return dotted(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return dotted(g[6], g[7]);
  if (g[0] === 0x2002) return dotted(g[1], g[2]);
  return null;
}

/**
 * Whether an address may not be fetched: private, loopback, link-local, reserved, or an IPv6 form of such an
 * IPv4 address. Teredo (2001::/32, whose client address is obfuscated) and NAT64's local-use prefix are refused whole.
 */
export function isPrivateAddress(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, "");
  const v = isIP(a);
  if (v === 4) return blocked.check(a, "ipv4");
  if (v !== 6) return true;
  const g = hextets(a);
  if (!g) return true;
  const inner = embeddedIPv4(g);
  if (inner !== null) return blocked.check(inner, "ipv4");
  return blocked.check(a, "ipv6");
}

function allowPrivate(): boolean {
  return process.env.OAUTH_ALLOW_PRIVATE_CLIENT_URLS === "1";
}

/** Whether a client_id names a metadata document (an https URL; http too under the test flag). */
export function isClientIdUrl(clientId: string): boolean {
  return clientId.startsWith("https://") || (allowPrivate() && clientId.startsWith("http://"));
}

export class ClientMetadataError extends Error {}

/** A lookup that refuses names resolving to any non-public address; the socket connects to what it returned. */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, "", 0);
    const list = addresses as unknown as LookupAddress[];
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad || list.length === 0) return callback(new ClientMetadataError(`${hostname} resolves to a non-public address`), "", 0);
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
    callback(null, list[0].address, list[0].family);
  });
};

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
      if (!(err instanceof ClientMetadataError)) console.warn(`[oauth] could not fetch ${url.href}: ${err.message}`);
      reject(err instanceof ClientMetadataError ? err : new ClientMetadataError(`the ${what} could not be fetched`));
      req.destroy();
    };
    const req = lib.get(
      url,
      {
        headers: { accept: "application/json" },
        timeout: TIMEOUT_MS,
        ...(allowPrivate() ? {} : { lookup: guardedLookup }),
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
