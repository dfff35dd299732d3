/**
 * Who is asking: the one trusted notion of a request's client, from facts a remote client cannot forge.
 * server.mjs (the app's server entry) puts the socket's peer address into the `x-kb-peer` header, signed
 * with a per-process secret (KB_PEER_SECRET) and always overwritten. A request is *local* when that peer
 * is a loopback address, no proxy header (Forwarded, X-Forwarded-For, X-Real-IP, Via) came with it and its
 * Host is a loopback name. Behind a proxy listed in TRUSTED_PROXIES the client is the right-most address
 * of the forwarded chain that is not itself a trusted proxy. Anything else — no or a bad signature (e.g.
 * `next start` run directly), a proxied request from an untrusted peer — is remote.
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
  /** Some proxy header was present. */
  p: boolean;
  /** Raw Forwarded header. */
  f: string | null;
  /** Raw X-Forwarded-For (or X-Real-IP). */
  x: string | null;
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
    const [addr, bits] = item.split("/");
    const a = unbracket(addr);
    const type = isIP(a) === 6 ? "ipv6" : isIP(a) === 4 ? "ipv4" : null;
    if (!type) throw new Error(`TRUSTED_PROXIES: "${item}" is not an IP address or CIDR range`);
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

/** Addresses of a forwarded chain, left (original client) to right (nearest proxy). */
export function forwardedChain(forwarded: string | null, xff: string | null): string[] {
  if (forwarded) {
    const out: string[] = [];
    for (const m of forwarded.matchAll(/for\s*=\s*("?)([^;,"]+)\1/gi)) {
      let v = m[2].trim();
      if (v.startsWith("[")) v = v.slice(1, v.indexOf("]"));
      else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(v)) v = v.replace(/:\d+$/, "");
      out.push(v);
    }
    if (out.length) return out;
  }
  return (xff ?? "")
    .split(",")
    .map((s) => unbracket(s))
    .filter(Boolean);
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
export function callerOf(req: Request, trustedProxies: BlockList = new BlockList()): Caller {
  const facts = readFacts(req.headers.get(PEER_HEADER));
  if (!facts) return { address: "unknown", local: false };
  const peer = unbracket(facts.a);
  if (!facts.p) {
    return { address: peer, local: isLoopbackAddress(peer) && isLoopbackHostName(req.headers.get("host") ?? "") };
  }
  if (!isTrusted(trustedProxies, peer)) return { address: peer, local: false };
  const chain = forwardedChain(facts.f, facts.x);
  let client = chain[0] ?? peer;
  for (const addr of [...chain].reverse()) {
    if (!isTrusted(trustedProxies, addr)) {
      client = addr;
      break;
    }
  }
  return { address: client, local: isLoopbackAddress(client) };
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
    p: ["forwarded", "x-forwarded-for", "x-real-ip", "via"].some((h) => get(h) !== null),
    f: get("forwarded"),
    x: get("x-forwarded-for") ?? get("x-real-ip"),
  };
  return `${process.env.KB_PEER_SECRET}.${Buffer.from(JSON.stringify(facts)).toString("base64url")}`;
}
