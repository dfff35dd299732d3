/**
 * The one rule for fetching a URL someone else chose (OAuth client metadata, knowledge sources): every address
 * a name resolves to must be public, and the socket connects to the address that was checked (no second lookup
 * to rebind).
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";

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

/** Whether every address `hostname` (a name or a literal address) resolves to is public; false when it resolves to none. */
export async function resolvesPublic(hostname: string): Promise<boolean> {
  const host = hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) return !isPrivateAddress(host);
  const addresses = await dnsLookupAll(host).catch(() => []);
  return addresses.length > 0 && !addresses.some((a) => isPrivateAddress(a.address));
}

const dnsLookupAll = (host: string) =>
  new Promise<LookupAddress[]>((resolve, reject) =>
    dnsLookup(host, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

/** A lookup that refuses names resolving to any non-public address; the socket connects to what it returned. */
export function guardedLookup(allowedHost: (hostname: string) => boolean = () => false): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      const list = addresses as unknown as LookupAddress[];
      const bad = allowedHost(hostname) ? undefined : list.find((a) => isPrivateAddress(a.address));
      if (bad || list.length === 0) {
        const e = Object.assign(new Error(`${hostname} resolves to a non-public address`), { code: "EPRIVATE" });
        return callback(e, "", 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}
