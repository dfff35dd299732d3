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
  for (const [net, bits] of [
    ["::", 128],
    ["::1", 128],
    ["64:ff9b::", 96],
    ["100::", 64],
    ["2001:db8::", 32],
    ["fc00::", 7],
    ["fe80::", 10],
    ["ff00::", 8],
  ] as const)
    list.addSubnet(net, bits, "ipv6");
  return list;
})();

/** Whether an address may not be fetched: private, loopback, link-local, reserved (IPv4-mapped IPv6 as IPv4). */
export function isPrivateAddress(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  if (mapped) return isPrivateAddress(mapped[1]);
  const v = isIP(a);
  if (v === 4) return blocked.check(a, "ipv4");
  if (v === 6) return blocked.check(a, "ipv6");
  return true;
}

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
