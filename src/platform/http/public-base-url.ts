import { BlockList, isIPv4, isIPv6, type AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.js'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Where clients reach this API, without a trailing slash (docs/operations.md): `PUBLIC_BASE_URL`, else
     * the address the server listens on, with its real port once it listens (`PORT=0` picks one).
     */
    readonly publicBaseUrl: string
  }
}

const WILDCARDS = new Set(['0.0.0.0', '::', ''])

/** `http://<host>:<port>` for a server listening on `host`: 127.0.0.1 for a wildcard (every address), brackets around IPv6. */
export function listenUrl(host: string, port: number): string {
  const name = WILDCARDS.has(host) ? '127.0.0.1' : isIPv6(host) ? `[${host}]` : host
  return `http://${name}:${port}`
}

const LOOPBACK = new BlockList()
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4')
LOOPBACK.addAddress('::1', 'ipv6')

/** Whether the URL names this machine only (127.0.0.0/8, ::1, localhost): another device that opens it reaches itself. */
export function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '')
  if (host === 'localhost' || host.endsWith('.localhost')) return true
  if (isIPv4(host)) return LOOPBACK.check(host, 'ipv4')
  return isIPv6(host) && LOOPBACK.check(host, 'ipv6')
}

/** Decorates `app.publicBaseUrl`; read on each use, so that it knows the port once the server listens. */
export function decoratePublicBaseUrl(app: FastifyInstance, config: Config) {
  app.decorate('publicBaseUrl', {
    getter(this: FastifyInstance) {
      if (config.publicBaseUrl) return config.publicBaseUrl
      const address = this.server.address() as AddressInfo | string | null
      return listenUrl(config.host, address && typeof address === 'object' ? address.port : config.port)
    },
  })
}
