import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { BlockList, isIP, type LookupFunction } from 'node:net'

/**
 * Addresses an outbound request to a URL given by a user must never reach: this host
 * (loopback), the private networks it may sit in, link-local (where cloud metadata services
 * answer, 169.254.169.254), carrier-grade NAT (Alibaba's metadata, 100.100.100.200), the
 * unspecified address, and the reserved, documentation and multicast ranges. IPv4-mapped and
 * NAT64 IPv6 addresses are judged by the IPv4 address they carry.
 */
const FORBIDDEN = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv4')
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['100::', 64],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv6')
}

/** The IPv4 address an IPv6 address carries (IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`), if any. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase()
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower)
  if (dotted) return dotted[1]
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower)
  if (!hex) return undefined
  const high = Number.parseInt(hex[1]!, 16)
  const low = Number.parseInt(hex[2]!, 16)
  return [high >> 8, high & 255, low >> 8, low & 255].join('.')
}

/** Whether an IP address is one a user-given URL must not reach. Anything that is not an IP address is refused too. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 4) return FORBIDDEN.check(address, 'ipv4')
  if (family !== 6) return true
  const v4 = embeddedIpv4(address)
  if (v4) return FORBIDDEN.check(v4, 'ipv4')
  return FORBIDDEN.check(address, 'ipv6')
}

/** Why an address was refused; its message names the host, never the URL (which may carry a secret path). */
export class ForbiddenAddressError extends Error {
  override name = 'ForbiddenAddressError'
  readonly code = 'EFORBIDDENADDRESS'
}

const strip = (host: string) => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host)

/**
 * Every address `host` resolves to (all of them, as `dns.lookup` with `all` answers), or a
 * ForbiddenAddressError when any of them is forbidden: a name that resolves to one public and
 * one private address is refused, since a client may connect to either.
 */
export async function resolveAllowed(host: string, allowPrivate: boolean): Promise<LookupAddress[]> {
  const bare = strip(host)
  const family = isIP(bare)
  const addresses = family
    ? [{ address: bare, family }]
    : await new Promise<LookupAddress[]>((resolve, reject) =>
        dnsLookup(bare, { all: true, verbatim: true }, (error, found) => (error ? reject(error) : resolve(found))),
      )
  if (addresses.length === 0) throw new ForbiddenAddressError(`${bare} resolves to no address`)
  if (!allowPrivate) {
    const forbidden = addresses.find((a) => isForbiddenAddress(a.address))
    if (forbidden) throw new ForbiddenAddressError(`${bare} resolves to a forbidden address (${forbidden.address})`)
  }
  return addresses
}

/**
 * A `lookup` for `http.request` that resolves with `resolveAllowed`, so that the socket connects
 * to the very addresses that were checked: a name that resolves to a public address when the
 * endpoint is saved and to a private one later (DNS rebinding) is refused when it is used.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolveAllowed(hostname, allowPrivate).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses
        if (wanted.length === 0) {
          callback(new ForbiddenAddressError(`${hostname} has no address of the family asked for`), '', 0)
          return
        }
        if (options.all) (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, wanted)
        else callback(null, wanted[0]!.address, wanted[0]!.family)
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    )
  }
}
