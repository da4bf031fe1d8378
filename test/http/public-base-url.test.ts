import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest'
import { seedDemo } from '../../src/domain/demo/seed-demo.js'
import { buildTestApp } from '../build-app.js'
import { createTestSeller } from '../factories/sellers.js'
import { checkinAdmin } from '../support/checkin.js'
import { resetDatabase, testDatabase } from '../support/database.js'
import { captureLogs } from '../support/log-capture.js'
import { freePort } from '../support/smtp-sink.js'

/**
 * docs/operations.md: PUBLIC_BASE_URL defaults to the address the server listens on, so that the OpenAPI
 * `servers` and the devices' `pairing_url` follow PORT; the server warns, once, when phones would
 * be handed a loopback address. Each app here listens as src/server.ts makes it listen.
 */
beforeEach(async () => {
  await resetDatabase(await testDatabase())
})

/** An app listening on its configured HOST and PORT, its warnings kept. */
async function listening(env: Record<string, string>) {
  const logs = captureLogs('warn')
  const app = await buildTestApp({ env: { LOG_LEVEL: 'warn', ...env }, logger: logs.logger })
  onTestFinished(() => app.close())
  await app.listen({ port: app.config.port, host: app.config.host })
  const { port } = app.server.address() as AddressInfo
  const loopbackWarnings = () => logs.lines.filter((line) => line.level === 40 && String(line.msg).includes('a loopback address'))
  return { app, port, loopbackWarnings }
}

const servers = async (port: number) => ((await (await fetch(`http://127.0.0.1:${port}/openapi.json`)).json()) as { servers: { url: string }[] }).servers

async function createDevice(app: FastifyInstance) {
  const { seller } = await createTestSeller(app)
  const res = await (await checkinAdmin(app)).post(`/sellers/${seller.id}/devices`, { name: 'Gate 1' })
  expect(res.statusCode, res.body).toBe(201)
  return res.json() as { id: string; pairing_code: string; pairing_url: string }
}

describe('PUBLIC_BASE_URL unset', () => {
  it('is the port the server listens on: the OpenAPI servers and a new device’s pairing_url say it', async () => {
    const port = await freePort()
    const { app } = await listening({ PORT: String(port) })
    expect(await servers(port)).toEqual([{ url: `http://127.0.0.1:${port}`, description: expect.any(String) }])
    const device = await createDevice(app)
    expect(device.pairing_url).toBe(`http://127.0.0.1:${port}/scan/#pair=${device.pairing_code}`)
  })

  it('names 127.0.0.1 for a wildcard HOST, and the port picked for PORT=0', async () => {
    const { app, port } = await listening({ HOST: '0.0.0.0', PORT: '0' })
    expect(port).not.toBe(0)
    expect(await servers(port)).toEqual([{ url: `http://127.0.0.1:${port}`, description: expect.any(String) }])
    expect((await createDevice(app)).pairing_url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/scan/#pair=`))
  })
})

describe('PUBLIC_BASE_URL set', () => {
  it('wins over the address the server listens on, and no loopback warning is given', async () => {
    const { app, port, loopbackWarnings } = await listening({ PORT: String(await freePort()), PUBLIC_BASE_URL: 'https://tickets.example.com/api/' })
    expect(await servers(port)).toEqual([{ url: 'https://tickets.example.com/api', description: expect.any(String) }])
    const device = await createDevice(app)
    expect(device.pairing_url).toBe(`https://tickets.example.com/api/scan/#pair=${device.pairing_code}`)
    await app.warnLoopbackPairingAtStart()
    expect(loopbackWarnings()).toEqual([])
  })
})

describe('the loopback warning', () => {
  it('comes once, with the fix, when a pairing link on a loopback address is first handed out', async () => {
    const { app, loopbackWarnings } = await listening({ PORT: String(await freePort()) })
    await app.warnLoopbackPairingAtStart()
    expect(loopbackWarnings()).toEqual([])
    const device = await createDevice(app)
    expect((await (await checkinAdmin(app)).get(`/devices/${device.id}/pairing.svg`)).statusCode).toBe(200)
    await createDevice(app)
    expect(loopbackWarnings()).toHaveLength(1)
    expect(loopbackWarnings()[0]).toMatchObject({ publicBaseUrl: app.publicBaseUrl })
    expect(loopbackWarnings()[0]!.msg).toContain('HOST=0.0.0.0 PUBLIC_BASE_URL=https://<lan-host>')
  })

  it('comes at start while a seller’s devices are in use, not for the demo’s device alone', async () => {
    const first = await listening({ PORT: String(await freePort()) })
    await seedDemo(first.app.db, {
      tokenHmac: first.app.secrets.tokenHmac,
      codes: first.app.ticketCodes,
      verifyEmailTtlSeconds: first.app.config.ttl.stfVerifyEmail,
    })
    await first.app.warnLoopbackPairingAtStart()
    expect(first.loopbackWarnings()).toEqual([])
    await createDevice(first.app)

    const again = await listening({ PORT: String(await freePort()) })
    await again.app.warnLoopbackPairingAtStart()
    expect(again.loopbackWarnings()).toHaveLength(1)
  })
})
