import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook must never reach: the service's own host and networks (SSRF). IANA special-purpose
 * ranges, IPv4 and IPv6. BlockList also matches IPv4-mapped IPv6 (`::ffff:127.0.0.1`) against IPv4 rules.
 */
const BLOCKED = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  // unspecified, loopback, NAT64, discard, documentation, ULA, link-local, site-local, multicast. No rule for
  // ::ffff:0:0/96 (mapped) or ::/96 (compatible): BlockList compares IPv4 addresses as mapped IPv6 too, so such a
  // rule would block every IPv4 address; mapped addresses are judged by the IPv4 rules instead (checked below).
  ['::', 128],
  ['::1', 128],
  ['::ffff:0:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  BLOCKED.addSubnet(net, bits, 'ipv6');

/** True for an IP literal that is routable on the public internet; false for special ranges and non-IPs. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6 && /^(0{0,4}:){2,6}(ffff:)?[0-9a-f]{1,4}:[0-9a-f]{1,4}$/i.test(address.replace(/^::/, '0::'))) {
    // ::a.b.c.d written in hex (IPv4-compatible, deprecated): judged as the IPv4 it carries.
    const [hi, lo] = address
      .split(':')
      .slice(-2)
      .map((h) => parseInt(h, 16));
    return isPublicAddress(`${hi! >> 8}.${hi! & 255}.${lo! >> 8}.${lo! & 255}`);
  }
  return !BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** A host name that names this machine whatever DNS says (RFC 6761). */
export function isLocalName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}
