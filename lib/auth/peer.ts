/**
 * Who is asking: the one trusted notion of a request's client, from facts a remote client cannot forge.
 * server.mjs (the app's server entry) puts the socket's peer address and the raw forwarding headers into the
 * `x-kb-peer` header, signed with a per-process secret (KB_PEER_SECRET) and always overwritten.
 *
 * - Local is never the default: a reverse proxy on this host (nginx's bare `proxy_pass`) sends exactly what a
 *   local browser sends. Only with LOCAL_OWNER=1 (`localOwner`) is a request local, and then only as a fact
 *   about the socket: the peer is a loopback address, its Host is a loopback name and none of the forwarding
 *   headers (Forwarded, X-Forwarded-For, X-Real-IP, Via) came with it. Otherwise the owner signs in with the
 *   link server.mjs prints (lib/auth/owner-link.ts).
 * - The client's address is the peer's, unless the peer is listed in TRUSTED_PROXIES: then exactly one
 *   header is read, the one TRUSTED_PROXY_HEADER names (X-Forwarded-For by default, or X-Real-IP, or
 *   Forwarded), and the client is its right-most address that is not itself a trusted proxy. Every other
 *   forwarding header is ignored: a proxy that sets one header passes the others through from the client.
 *
 * Anything else — no or a bad signature (e.g. `next start` run directly) — is remote with address "unknown".
 */
import { BlockList, isIP } from "node:net";
import { safeEqual } from "./internal";

export const PEER_HEADER = "x-kb-peer";

export interface Caller {
  /** The client's address as far as it can be trusted ("unknown" without the server entry's header). */
  address: string;
  /** Asked from this machine, directly or through a trusted proxy. */
  local: boolean;
}

interface PeerFacts {
  /** Socket peer address. */
  a: string;
  /** Some forwarding header was present. */
  p: boolean;
  /** Raw Forwarded header. */
  f: string | null;
  /** Raw X-Forwarded-For. */
  x: string | null;
  /** Raw X-Real-IP. */
  r?: string | null;
}

/** The forwarding headers a request may carry; any of them makes it not local (server.mjs has the same list). */
const FORWARDING_HEADERS = ["forwarded", "x-forwarded-for", "x-real-ip", "via"] as const;

/** The headers TRUSTED_PROXY_HEADER may name: the one a trusted proxy sets. */
const PROXY_HEADERS = ["x-forwarded-for", "x-real-ip", "forwarded"] as const;
export type ProxyHeader = (typeof PROXY_HEADERS)[number];

/** Whom to believe about a forwarded request's client (AuthSettings has both). */
export interface ProxyTrust {
  /** TRUSTED_PROXIES. Default: none. */
  trustedProxies?: BlockList;
  /** TRUSTED_PROXY_HEADER. Default: x-forwarded-for. */
  trustedProxyHeader?: ProxyHeader;
  /** LOCAL_OWNER=1 (AuthSettings.localOwner): a bare loopback request is local. Default: none is. */
  localOwner?: boolean;
}

/** TRUSTED_PROXY_HEADER: X-Forwarded-For (default), X-Real-IP or Forwarded, in any case. */
export function parseProxyHeader(raw: string | undefined): ProxyHeader {
  const h = (raw ?? "").trim().toLowerCase() || "x-forwarded-for";
  if (!(PROXY_HEADERS as readonly string[]).includes(h)) {
    throw new Error(`TRUSTED_PROXY_HEADER: "${raw}" is not one of X-Forwarded-For, X-Real-IP, Forwarded`);
  }
  return h as ProxyHeader;
}

function unbracket(addr: string): string {
  return addr
    .trim()
    .replace(/^\[|\]$/g, "")
    .replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, "$1");
}

function isLoopbackAddress(addr: string): boolean {
  const a = unbracket(addr);
  return a === "::1" || /^127\.\d+\.\d+\.\d+$/.test(a);
}

/** Loopback host names as a browser on this machine would send them in Host. */
export function isLoopbackHostName(host: string): boolean {
  const raw = host.trim().toLowerCase();
  const h = raw.startsWith("[") ? raw.slice(1, raw.indexOf("]")) : raw.split(":").length > 2 ? raw : raw.replace(/:\d+$/, "");
  return h === "localhost" || isLoopbackAddress(h);
}

/** TRUSTED_PROXIES: comma-separated addresses or CIDR ranges (e.g. "127.0.0.1, 10.0.0.0/8"). */
export function parseTrustedProxies(raw: string | undefined): BlockList {
  const list = new BlockList();
  for (const item of (raw ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [addr, bits, ...rest] = item.split("/");
    const a = unbracket(addr);
    const type = isIP(a) === 6 ? "ipv6" : isIP(a) === 4 ? "ipv4" : null;
    const maxBits = type === "ipv6" ? 128 : 32;
    // Checked here, so the start-up error names the variable and the entry (BlockList's own says only "prefix").
    const prefixOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
    if (!type || rest.length || !prefixOk) {
      throw new Error(`TRUSTED_PROXIES: "${item}" is not an IP address or CIDR range (a prefix length is 0–${maxBits})`);
    }
    if (bits === undefined) list.addAddress(a, type);
    else list.addSubnet(a, Number(bits), type);
  }
  return list;
}

function isTrusted(list: BlockList, addr: string): boolean {
  const a = unbracket(addr);
  const type = isIP(a) === 6 ? "ipv6" : isIP(a) === 4 ? "ipv4" : null;
  return type !== null && list.check(a, type);
}

/** Addresses of a `Forwarded` header's `for=` parameters (RFC 7239), left (original client) to right (nearest proxy). */
export function forwardedFor(forwarded: string | null): string[] {
  const out: string[] = [];
  for (const element of (forwarded ?? "").split(",")) {
    const m = /(?:^|;)\s*for\s*=\s*("?)([^;"]*)\1\s*(?:;|$)/i.exec(element);
    if (!m) continue;
    let v = m[2].trim();
    if (v.startsWith("[")) v = v.slice(1, v.indexOf("]") < 0 ? undefined : v.indexOf("]"));
    else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(v)) v = v.replace(/:\d+$/, "");
    out.push(v);
  }
  return out;
}

/** Addresses of a comma-separated list (X-Forwarded-For, X-Real-IP), left to right. */
export function addressList(raw: string | null): string[] {
  return (raw ?? "")
    .split(",")
    .map((s) => unbracket(s))
    .filter(Boolean);
}

function chainOf(facts: PeerFacts, header: ProxyHeader): string[] {
  if (header === "forwarded") return forwardedFor(facts.f);
  return addressList(header === "x-real-ip" ? (facts.r ?? null) : facts.x);
}

function peerSecret(): string | undefined {
  return process.env.KB_PEER_SECRET || undefined;
}

function readFacts(header: string | null): PeerFacts | null {
  const secret = peerSecret();
  if (!header || !secret) return null;
  const dot = header.indexOf(".");
  if (dot < 0 || !safeEqual(header.slice(0, dot), secret)) return null;
  try {
    const facts = JSON.parse(Buffer.from(header.slice(dot + 1), "base64url").toString("utf8")) as PeerFacts;
    return typeof facts.a === "string" ? facts : null;
  } catch {
    return null;
  }
}

/** Who sent `req` (see the module comment). */
export function callerOf(req: Request, trust: ProxyTrust = {}): Caller {
  const facts = readFacts(req.headers.get(PEER_HEADER));
  if (!facts) return { address: "unknown", local: false };
  const peer = unbracket(facts.a);
  if (!facts.p) {
    return {
      address: peer,
      local: trust.localOwner === true && isLoopbackAddress(peer) && isLoopbackHostName(req.headers.get("host") ?? ""),
    };
  }
  const proxies = trust.trustedProxies ?? new BlockList();
  if (!isTrusted(proxies, peer)) return { address: peer, local: false };
  const chain = chainOf(facts, trust.trustedProxyHeader ?? "x-forwarded-for");
  // Right to left: the first hop a trusted proxy did not vouch for is the client. A chain of trusted proxies
  // only (or none, the header missing) leaves the left-most, else the peer.
  let client = chain[0] ?? peer;
  for (let i = chain.length - 1; i >= 0; i--) {
    if (!isTrusted(proxies, chain[i])) {
      client = chain[i];
      break;
    }
  }
  return { address: unbracket(client).slice(0, 100), local: false };
}

/**
 * The header server.mjs would set for a socket peer `address` (tests, and in-process servers that are not
 * server.mjs). Needs KB_PEER_SECRET, which it sets when missing.
 */
export function peerHeaderFor(address: string, headers: Record<string, string | undefined> = {}): string {
  process.env.KB_PEER_SECRET ||= `test-${Math.random().toString(36).slice(2)}${Date.now()}`;
  const get = (h: string) => headers[h] ?? null;
  const facts: PeerFacts = {
    a: address,
    p: FORWARDING_HEADERS.some((h) => get(h) !== null),
    f: get("forwarded"),
    x: get("x-forwarded-for"),
    r: get("x-real-ip"),
  };
  return `${process.env.KB_PEER_SECRET}.${Buffer.from(JSON.stringify(facts)).toString("base64url")}`;
}
