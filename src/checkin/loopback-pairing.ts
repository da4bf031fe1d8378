import fp from 'fastify-plugin'
import { hasDevicesInUse } from '../domain/checkin/devices.repo.js'
import { findDemoSeller } from '../domain/demo/renew-demo-credentials.js'
import { isLoopbackUrl } from '../platform/http/public-base-url.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Says once per process, when `publicBaseUrl` is a loopback address, that phones cannot pair from it; nothing otherwise. */
    warnLoopbackPairing(): void
    /** At start, once listening: `warnLoopbackPairing` when devices of a seller other than the demo's are in use. */
    warnLoopbackPairingAtStart(): Promise<void>
  }
}

/**
 * A device's `pairing_url` and pairing QR start with `app.publicBaseUrl`: on a loopback address
 * (the default, 127.0.0.1, on a laptop) a phone that opens one reaches itself, not this server
 * (docs/operations.md). The server says so in one warning a process, with the fix: when it starts
 * listening while devices of a seller are in use (paired, or waiting to pair; src/server.ts),
 * else when it first hands out a pairing link (a device created, a pairing QR drawn). The demo's
 * own device, which the banner pairs with curl on this machine, counts for nothing: a laptop
 * trying the demo is not told about phones.
 */
export const loopbackPairingWarning = fp(
  async (app) => {
    let warned = false
    app.decorate('warnLoopbackPairing', () => {
      const url = app.publicBaseUrl
      if (warned || !isLoopbackUrl(url)) return
      warned = true
      app.log.warn(
        { publicBaseUrl: url },
        `pairing links point at ${url}, a loopback address: a phone that opens a device's pairing_url or scans its pairing QR ` +
          'reaches itself, not this server. To pair phones, listen on the network and set the address they reach, e.g. ' +
          'HOST=0.0.0.0 PUBLIC_BASE_URL=https://<lan-host> (a phone camera needs HTTPS: a TLS proxy in front)',
      )
    })
    app.decorate('warnLoopbackPairingAtStart', async () => {
      if (!isLoopbackUrl(app.publicBaseUrl)) return
      if (await hasDevicesInUse(app.db, await findDemoSeller(app.db))) app.warnLoopbackPairing()
    })
  },
  { name: 'loopback-pairing-warning', dependencies: ['database'] },
)
