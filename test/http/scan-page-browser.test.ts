import { generateKeyPairSync, sign } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import QRCode from 'qrcode'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory, dayFromToday } from '../factories/catalog.js'
import { useTwoSellers } from '../factories/sellers.js'
import type { AdmClient } from '../support/adm-client.js'
import { buyTickets, checkinAdmin, type TestOrder } from '../support/checkin.js'
import { resetDatabase, testDatabase, usesPostgres } from '../support/database.js'

/**
 * API.md 7.8 in a real Chromium (Debian's), its camera faked from a video of a ticket's QR: pair
 * from pairing_url, scan green then red, go offline (server stopped, network off), scan against
 * the copy, come back and see the server count the queued scans. On PostgreSQL only.
 */
const CHROMIUM = '/usr/lib/chromium/chromium'
const skip = !existsSync(CHROMIUM)
  ? `${CHROMIUM} is missing (apt-get install -y chromium)`
  : !usesPostgres()
    ? 'it runs on PostgreSQL (TEST_DATABASE_URL)'
    : null
if (skip) console.warn(`scanner page browser test skipped: ${skip}`)

const ARTIFACTS = path.resolve('test-artifacts')
const WIDTH = 640
const HEIGHT = 480
const MEASURED = 8

/** A Y4M video (4:2:0) showing each code's QR for `frames` frames then a blank frame, at 10 frames a second. */
function writeVideo(file: string, codes: string[], frames = 6) {
  const header = Buffer.from(`YUV4MPEG2 W${WIDTH} H${HEIGHT} F10:1 Ip A1:1 C420jpeg\n`)
  const chroma = Buffer.alloc((WIDTH / 2) * (HEIGHT / 2) * 2, 128)
  const frame = (luma: Buffer) => Buffer.concat([Buffer.from('FRAME\n'), luma, chroma])
  const blank = frame(Buffer.alloc(WIDTH * HEIGHT, 235))
  const parts: Buffer[] = [header]
  for (const code of codes) {
    const qr = QRCode.create(code, { errorCorrectionLevel: 'M' }).modules
    const scale = Math.floor((HEIGHT - 40) / (qr.size + 8))
    const left = Math.floor((WIDTH - qr.size * scale) / 2)
    const top = Math.floor((HEIGHT - qr.size * scale) / 2)
    const luma = Buffer.alloc(WIDTH * HEIGHT, 235)
    for (let y = 0; y < qr.size * scale; y++) {
      for (let x = 0; x < qr.size * scale; x++) {
        if (qr.data[Math.floor(y / scale) * qr.size + Math.floor(x / scale)]) luma[(top + y) * WIDTH + left + x] = 16
      }
    }
    const shown = frame(luma)
    for (let n = 0; n < frames; n++) parts.push(shown)
    parts.push(blank)
  }
  writeFileSync(file, Buffer.concat(parts))
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((x, y) => x - y)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

describe.skipIf(skip)('the scanner page in a real browser', () => {
  const env: Record<string, string> = {}
  const ctx = {} as { app: FastifyInstance }
  let port: number
  let baseUrl: string
  let profile: string
  let videos: string
  let adm: AdmClient
  let listId: string
  let orderId: string
  let tickets: TestOrder['tickets']
  let pairingUrl: string
  let context: BrowserContext | undefined
  let videoCount = 0

  beforeAll(async () => {
    port = await freePort()
    baseUrl = `http://127.0.0.1:${port}`
    env.PUBLIC_BASE_URL = baseUrl
    await resetDatabase(await testDatabase())
    ctx.app = await buildTestApp({ env })
    await ctx.app.listen({ port, host: '127.0.0.1' })
  }, 120_000)
  const [a] = useTwoSellers(ctx, { a: { settings: { timezone: 'UTC' } }, b: { settings: { timezone: 'UTC' } } })

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true })
    profile = mkdtempSync(path.join(tmpdir(), 'scanner-profile-'))
    videos = mkdtempSync(path.join(tmpdir(), 'scanner-video-'))
    adm = await checkinAdmin(ctx.app)
    const event = await createTestEvent(ctx.app, a.seller.id, { title: 'Festa na gate' })
    const inventory = await createTestInventory(ctx.app, event, { date: dayFromToday(0), capacity: 100 })
    listId = (await adm.post(`/events/${event.id}/checkin-lists`, { name: 'Main gate' })).json().id
    const order = await buyTickets(ctx.app, a, [{ inventory_id: inventory.id, quantity: 2 * MEASURED + 2 }])
    orderId = order.id
    tickets = order.tickets
    const device = await adm.post(`/sellers/${a.seller.id}/devices`, { name: 'Phone at gate 1' })
    pairingUrl = device.json().pairing_url
  }, 120_000)

  afterAll(async () => {
    await context?.close()
    await ctx.app?.close()
  })

  /** The phone, with a camera that films these codes; its profile (IndexedDB, service worker) kept across launches. */
  async function phone(codes: string[], { offline = false } = {}): Promise<Page> {
    await context?.close()
    const video = path.join(videos, `camera-${++videoCount}.y4m`)
    writeVideo(video, codes)
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      locale: 'en-US',
      timezoneId: 'UTC',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream',
        `--use-file-for-fake-video-capture=${video}`,
      ],
    })
    if (offline) await context.setOffline(true)
    const page = context.pages()[0] ?? (await context.newPage())
    page.on('pageerror', (error) => console.error('page error:', error.message))
    return page
  }

  const answer = (page: Page, verdict: string, reason = '') =>
    page.waitForSelector(`#answer[data-verdict="${verdict}"][data-reason="${reason}"]:not([hidden])`, { timeout: 60_000 })
  const measures = (page: Page, count: number) =>
    page
      .waitForFunction((n) => performance.getEntriesByName('scan:frame-to-answer').length >= n, count, { timeout: 90_000 })
      .then(() => page.evaluate(() => performance.getEntriesByName('scan:frame-to-answer').map((m) => m.duration)))
  const status = async () => (await adm.get(`/checkin-lists/${listId}/status`)).json()
  const checkinsOf = async (identifier: string) => (await adm.get(`/checkin-lists/${listId}/checkins?identifier=${identifier}`)).json().data

  it('pairs from pairing_url and answers a valid ticket green, once while the camera keeps seeing it', async () => {
    const measured = tickets.slice(0, MEASURED)
    const page = await phone(measured.map((ticket) => ticket.code))
    const transferred: number[] = []
    page.on('response', (response) => {
      response.body().then(
        (body) => transferred.push(body.length),
        () => undefined,
      )
    })
    await page.goto(pairingUrl)
    await page.waitForSelector('body[data-view="lists"]', { timeout: 60_000 })
    expect(page.url()).toBe(`${baseUrl}/scan/`)
    await page.check(`#list-choices input[value="${listId}"]`)
    await page.click('#lists-form button[type="submit"]')
    await answer(page, 'ok')
    await page.screenshot({ path: path.join(ARTIFACTS, 'scanner-green.png') })
    const durations = await measures(page, MEASURED)
    console.info(
      `scanner frame-to-answer online: p50 ${percentile(durations, 50).toFixed(0)} ms, p95 ${percentile(durations, 95).toFixed(0)} ms over ${durations.length}: ${durations.map(Math.round).join(' ')}`,
    )
    console.info(`scanner first load: ${(transferred.reduce((x, y) => x + y, 0) / 1024).toFixed(0)} KiB in ${transferred.length} responses`)
    expect(await checkinsOf(measured[0]!.identifier)).toHaveLength(1)
    expect((await status()).checked_in).toBeGreaterThanOrEqual(measured.length - 1)
    expect(await page.evaluate('navigator.serviceWorker.controller !== null')).toBe(true)
  }, 180_000)

  it('answers the same ticket red already_redeemed when scanned again', async () => {
    const page = await phone([tickets[0]!.code])
    let fromNetwork = 0
    page.on('response', (response) => {
      if (!response.fromServiceWorker() && response.url().includes('/scan/'))
        response.body().then(
          (body) => (fromNetwork += body.length),
          () => undefined,
        )
    })
    await page.goto(`${baseUrl}/scan/`)
    await answer(page, 'refused', 'already_redeemed')
    await page.screenshot({ path: path.join(ARTIFACTS, 'scanner-red.png') })
    console.info(`scanner second load: ${(fromNetwork / 1024).toFixed(0)} KiB of the page from the network, the rest from the service worker's cache`)
    expect(page.url()).not.toContain('pair')
  }, 120_000)

  it('offline, loads from the service worker and judges against the synced copy: voided red, valid green and queued, forged red', async () => {
    const voided = tickets[MEASURED]!
    const voidedAt = new Date().toISOString()
    expect((await adm.post(`/orders/${orderId}/tickets/${voided.identifier}/void`)).statusCode).toBe(200)
    // Online once more, to sync the feed with the void.
    let page = await phone([])
    await page.goto(`${baseUrl}/scan/`)
    await page.waitForFunction(
      (since) => {
        const page = globalThis as unknown as { document: { querySelector(selector: string): { dateTime: string } | null } }
        return (page.document.querySelector('#last-sync')?.dateTime ?? '') > since
      },
      voidedAt,
      { timeout: 60_000 },
    )
    await context!.close()
    context = undefined
    await ctx.app.close()

    page = await phone([voided.code], { offline: true })
    await page.goto(`${baseUrl}/scan/`)
    await answer(page, 'refused', 'voided')
    await page.waitForSelector('#net[data-online="false"]')

    const fresh = tickets.slice(MEASURED + 1, MEASURED + 1 + MEASURED)
    page = await phone(
      fresh.map((ticket) => ticket.code),
      { offline: true },
    )
    await page.goto(`${baseUrl}/scan/`)
    await answer(page, 'ok')
    const durations = await measures(page, fresh.length)
    console.info(
      `scanner frame-to-answer offline: p50 ${percentile(durations, 50).toFixed(0)} ms, p95 ${percentile(durations, 95).toFixed(0)} ms over ${durations.length}: ${durations.map(Math.round).join(' ')}`,
    )
    await page.waitForSelector(`#queued[data-count="${fresh.length + 1}"]`)

    const [header, payload] = tickets[0]!.code.split('.')
    const forged = `${header}.${payload}.${sign(null, Buffer.from(`${header}.${payload}`), generateKeyPairSync('ed25519').privateKey).toString('base64url')}`
    page = await phone([forged], { offline: true })
    await page.goto(`${baseUrl}/scan/`)
    await answer(page, 'refused', 'invalid')
    await page.waitForSelector(`#queued[data-count="${fresh.length + 2}"]`)

    // Back online: the queue goes up with force and each scan's own time; the server counts the entries.
    ctx.app = await buildTestApp({ env })
    await ctx.app.listen({ port, host: '127.0.0.1' })
    adm = await checkinAdmin(ctx.app)
    const before = (await status()).checked_in
    await context!.setOffline(false)
    await page.waitForSelector('#queued[data-count="0"]', { timeout: 60_000 })
    await page.waitForSelector('#net[data-online="true"]')
    expect((await status()).checked_in).toBe(before + fresh.length)
    const uploaded = await checkinsOf(fresh[0]!.identifier)
    expect(uploaded).toHaveLength(1)
    expect(uploaded[0]).toMatchObject({ successful: true, type: 'entry' })
    await page.waitForSelector('#history li[data-queued="false"][data-reason="voided"]')
  }, 300_000)
})
