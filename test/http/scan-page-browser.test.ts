import { generateKeyPairSync, sign } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { and, eq, sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import QRCode from 'qrcode'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { outboxEmails } from '../../src/platform/mail/outbox.table.js'
import { buildTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory, dayFromToday } from '../factories/catalog.js'
import { useTwoSellers } from '../factories/sellers.js'
import type { AdmClient } from '../support/adm-client.js'
import { buyTickets, buyTicketsAs, checkinAdmin, orderAwaitingPayment, type TestOrder } from '../support/checkin.js'
import { linkToken } from '../support/customer-auth.js'
import { resetDatabase, testDatabase, usesPostgres } from '../support/database.js'

/**
 * docs/door.md in a real Chromium (Debian's), its camera faked from a video of a ticket's QR: pair
 * from pairing_url, scan green then red, go offline (server stopped, network off), scan against
 * the copy, come back and see the server count the queued scans. Then what once jammed a gate for
 * good (a list deleted while offline, a clock 6 minutes fast, a junk code in the queue): within
 * 60 s of the network's return the queue is empty, the page online, the bad scan shown refused,
 * the others recorded, and the next scan goes to the server. On PostgreSQL only.
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

/** A page script that sets the page's clock `ms` ahead: every `Date` it makes, and `Date.now()`. */
const clockAhead = (ms: number) => `{
  const RealDate = Date
  class AheadDate extends RealDate {
    constructor(...args) { if (args.length === 0) super(RealDate.now() + ${ms}); else super(...args) }
    static now() { return RealDate.now() + ${ms} }
  }
  globalThis.Date = AheadDate
}`

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
  let event: { id: string; sellerId: string }
  let inventoryId: string
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
    event = await createTestEvent(ctx.app, a.seller.id, { title: 'Festa na gate' })
    const inventory = await createTestInventory(ctx.app, event, { date: dayFromToday(0), capacity: 100 })
    inventoryId = inventory.id
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

  /**
   * The phone, with a camera that films these codes; its profile (IndexedDB, service worker) kept
   * across launches. `clockAheadMs`: the phone's clock runs that far ahead of the server's.
   */
  async function phone(codes: string[], { offline = false, on = profile, clockAheadMs = 0 } = {}): Promise<Page> {
    await context?.close()
    const video = path.join(videos, `camera-${++videoCount}.y4m`)
    writeVideo(video, codes)
    context = await chromium.launchPersistentContext(on, {
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
    if (clockAheadMs !== 0) await context.addInitScript({ content: clockAhead(clockAheadMs) })
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

  /** A new phone paired to these lists from its pairing_url, synced, with a profile of its own. */
  async function pairedPhone(name: string, lists: string[], options: { clockAheadMs?: number } = {}) {
    const on = mkdtempSync(path.join(tmpdir(), 'scanner-profile-'))
    const url = (await adm.post(`/sellers/${a.seller.id}/devices`, { name })).json().pairing_url
    const page = await phone([], { on, ...options })
    await page.goto(url)
    await page.waitForSelector('body[data-view="lists"]', { timeout: 60_000 })
    for (const list of lists) await page.check(`#list-choices input[value="${list}"]`)
    await page.click('#lists-form button[type="submit"]')
    await page.waitForSelector('body[data-view="scan"]')
    await page.waitForSelector('#last-sync[datetime^="2"]', { timeout: 60_000 })
    // The page opens offline from here on: its service worker has cached it.
    await page.evaluate('navigator.serviceWorker.ready.then(() => true)')
    return { on, page }
  }

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
  it('offline, refuses a ticket of an order awaiting payment as unpaid, typed by its identifier: "Not paid"', async () => {
    const order = await orderAwaitingPayment(ctx.app, a, [{ inventory_id: inventoryId, quantity: 1 }])
    const { identifier } = order.tickets[0]!
    const { on, page: synced } = await pairedPhone('Phone and a pix not paid yet', [listId])
    // The feed shows a ticket once older writes have ended: wait until the copy keeps it, as the feed said it.
    const kept = `import('/scan/js/store.js').then(({ store }) => store.ticket(${JSON.stringify(listId)}, ${JSON.stringify(identifier)}))`
    await synced.waitForFunction(`${kept}.then((ticket) => ticket?.status === 'pending')`, undefined, { timeout: 60_000, polling: 500 })
    const page = await phone([], { offline: true, on })
    await page.goto(`${baseUrl}/scan/`)
    await page.waitForSelector('#net[data-online="false"]')
    await page.fill('#manual', identifier)
    await page.click('#manual-redeem')
    await answer(page, 'refused', 'unpaid')
    expect(await page.textContent('#answer-title')).toBe('Not paid')
    await page.waitForSelector('#history li[data-status="refused"][data-reason="unpaid"][data-queued="true"]')
  }, 180_000)

  it('shows the show’s time and venue with the answer; offline, refuses an entry before the window the feed gave (2 h before the doors)', async () => {
    const event = await createTestEvent(ctx.app, a.seller.id, {
      title: 'Show na arena',
      venue: { name: 'Arena Azul', address: 'Rua Augusta, 1500', city: 'São Paulo', state: 'SP', country: 'BR' },
    })
    const today = dayFromToday(0)
    // Doors unsaid: open all day (the seller is in UTC). Doors at 12:00: from 10:00 UTC.
    const allDay = await createTestInventory(ctx.app, event, { date: today, time: '20:00', capacity: 10, name: 'Pista' })
    const noon = await createTestInventory(ctx.app, event, { date: today, time: '21:30', doorsTime: '12:00', capacity: 10, name: 'Camarote' })
    const list = (await adm.post(`/events/${event.id}/checkin-lists`, { name: 'Arena gate' })).json().id as string
    const [online] = (await buyTickets(ctx.app, a, [{ inventory_id: allDay.id, quantity: 1 }])).tickets
    const [early] = (await buyTickets(ctx.app, a, [{ inventory_id: noon.id, quantity: 1 }])).tickets
    const { on, page } = await pairedPhone('Phone at the arena', [list])

    await page.fill('#manual', online!.identifier)
    await page.click('#manual-redeem')
    await answer(page, 'ok')
    const when = await page.textContent('#answer-when')
    expect(when).toContain('20:00')
    expect(when).toContain('Arena Azul')
    await page.screenshot({ path: path.join(ARTIFACTS, 'scanner-show-time.png') })

    // The copy keeps the window the server computed.
    const kept = `import('/scan/js/store.js').then(({ store }) => store.ticket(${JSON.stringify(list)}, ${JSON.stringify(early!.identifier)}))`
    await page.waitForFunction(`${kept}.then((ticket) => ticket?.entry_opens_at === '${today}T10:00:00.000Z')`, undefined, { timeout: 60_000, polling: 500 })
    // Offline at 09:59 and 10:00 UTC (the phone's clock set there): the day has begun, the window not yet, then it has.
    const offlineAt = async (instant: string) => {
      const phoneAt = await phone([], { offline: true, on, clockAheadMs: Date.parse(instant) - Date.now() })
      await phoneAt.goto(`${baseUrl}/scan/`)
      await phoneAt.waitForSelector('#net[data-online="false"]')
      await phoneAt.fill('#manual', early!.identifier)
      await phoneAt.click('#manual-redeem')
      return phoneAt
    }
    const before = await offlineAt(`${today}T09:59:00.000Z`)
    await answer(before, 'refused', 'invalid_time')
    expect(await before.textContent('#answer-when')).toContain('21:30')
    const after = await offlineAt(`${today}T10:00:30.000Z`)
    await answer(after, 'ok')
    expect(await after.textContent('#answer-when')).toContain('Arena Azul')
  }, 180_000)

  describe('a ticket given to someone else, or given a new code, a moment before the network went', () => {
    /**
     * The buyer gives a ticket away and the recipient accepts (docs/transfers.md), through the
     * storefront: the offer, the token read from the link emailed to the recipient, the accept.
     * The old identifier and every code of it are revoked, and the door's feed says so. Answers
     * the recipient's ticket: a new identifier and code.
     */
    async function transfer(order: TestOrder, identifier: string, buyer: Record<string, string>): Promise<{ identifier: string; code: string }> {
      const email = `friend-${identifier.toLowerCase()}@example.com`
      const offered = await ctx.app.inject({
        method: 'POST',
        url: `/stf/v1/orders/${order.id}/tickets/${identifier}/transfers`,
        headers: buyer,
        payload: { email, name: 'Bia Lima' },
      })
      expect(offered.statusCode, offered.body).toBe(201)
      const [mail] = await ctx.app.db
        .select({ text: outboxEmails.text })
        .from(outboxEmails)
        .where(and(eq(outboxEmails.kind, 'stf.transfer_offered'), eq(outboxEmails.to, email)))
      const token = linkToken(mail!.text, a.seller.storefrontUrl.replace(/\/+$/, ''), 'transfer')
      const accepted = await ctx.app.inject({ method: 'POST', url: '/stf/v1/transfers/accept', headers: a.auth, payload: { token } })
      expect(accepted.statusCode, accepted.body).toBe(200)
      const { ticket } = accepted.json() as { ticket: { identifier: string; code: string } }
      expect(ticket.identifier).not.toBe(identifier)
      return ticket
    }

    /**
     * The ticket re-issued (a holder change does the same to its code): its `code_version` goes up
     * and its code is signed anew, the old one dead. The database does here what the back office's
     * re-issue does to the ticket. Answers the new code, as the buyer's order shows it.
     */
    async function reissue(order: TestOrder, identifier: string, buyer: Record<string, string>): Promise<string> {
      await ctx.app.db.execute(sql`update tickets set code_version = code_version + 1, changed_xid = pg_current_xact_id() where identifier = ${identifier}`)
      const read = await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}`, headers: buyer })
      expect(read.statusCode).toBe(200)
      const ticket = (read.json().tickets as TestOrder['tickets']).find((ticket) => ticket.identifier === identifier)!
      return ticket.code
    }

    /** The answer on screen: refused `invalid`, in the words the page has for it (`transferred`, `older_code`). */
    const refusedAs = (page: Page, why: string) =>
      page.waitForSelector(`#answer[data-verdict="refused"][data-reason="invalid"][data-why="${why}"]:not([hidden])`, { timeout: 60_000 })

    /** Types a code or an identifier and checks it; waits for the answer, reads its title and taps it away. */
    async function typed(page: Page, code: string, shown: (page: Page) => Promise<unknown>) {
      await page.fill('#manual', code)
      await page.click('#manual-redeem')
      await shown(page)
      const title = await page.textContent('#answer-title')
      await page.click('#answer')
      await page.waitForSelector('#answer', { state: 'hidden' })
      return title
    }

    it('a scanner page, offline with its feed, refuses the old code after a transfer made while it was online a moment before', async () => {
      // Tonight at 23:59 (UTC), on the gate's list: a ticket may be given until its time (at 00:00 of its date without one).
      const tonight = await createTestInventory(ctx.app, event, { date: dayFromToday(0), time: '23:59', capacity: 10 })
      const { order, buyer } = await buyTicketsAs(ctx.app, a, [{ inventory_id: tonight.id, quantity: 2 }])
      const [given, renewed] = order.tickets as [TestOrder['tickets'][number], TestOrder['tickets'][number]]
      const { on, page } = await pairedPhone('Phone at a transfer', [listId])

      // Online: one ticket is given away (the recipient's is new), the other re-issued; the page syncs when it opens again.
      const received = await transfer(order, given.identifier, buyer)
      const renewedCode = await reissue(order, renewed.identifier, buyer)
      expect(renewedCode).not.toBe(renewed.code)
      await page.reload()
      const kept = (identifier: string) =>
        `import('/scan/js/store.js').then(({ store }) => store.ticket(${JSON.stringify(listId)}, ${JSON.stringify(identifier)}))`
      await page.waitForFunction(
        `Promise.all([${kept(given.identifier)}, ${kept(renewed.identifier)}, ${kept(received.identifier)}]).then(([given, renewed, received]) =>
          given?.status === 'revoked' && renewed?.code_version === 1 && received?.status === 'valid')`,
        undefined,
        { timeout: 60_000, polling: 500 },
      )
      // The server refuses both old codes as invalid; the page says why, from its copy.
      expect(await typed(page, given.code, (page) => refusedAs(page, 'transferred'))).toBe('Transferred to someone else')
      expect(await typed(page, renewed.code, (page) => refusedAs(page, 'older_code'))).toBe('Replaced: an older code')
      expect(await page.locator('#history li[data-queued="false"]').count()).toBe(2)
      expect(await page.locator('#queued').getAttribute('data-count')).toBe('0')

      // Offline with that copy: the camera sees the given-away code.
      const offline = await phone([given.code], { offline: true, on })
      await offline.goto(`${baseUrl}/scan/`)
      await refusedAs(offline, 'transferred')
      expect(await offline.textContent('#answer-title')).toBe('Transferred to someone else')
      await offline.waitForSelector('#net[data-online="false"]')
      await offline.click('#answer')
      await offline.waitForSelector('#answer', { state: 'hidden' })
      expect(await typed(offline, given.identifier, (page) => refusedAs(page, 'transferred'))).toBe('Transferred to someone else')
      expect(await typed(offline, renewed.code, (page) => refusedAs(page, 'older_code'))).toBe('Replaced: an older code')
      expect(await typed(offline, renewedCode, (page) => answer(page, 'ok'))).toBe('Valid')
      // The recipient's new code, from the copy: let in.
      expect(await typed(offline, received.code, (page) => answer(page, 'ok'))).toBe('Valid')
      await offline.waitForSelector('#queued[data-count="5"]')

      // Back online: the server judges the uploads as the page did, and the history keeps saying why.
      await context!.setOffline(false)
      await offline.waitForSelector('#queued[data-count="0"]', { timeout: 60_000 })
      await offline.waitForSelector('#history li[data-queued="true"]', { state: 'detached', timeout: 60_000 })
      expect(await offline.locator('#history li[data-status="refused"][data-reason="invalid"][data-why="transferred"]').count()).toBe(3)
      expect(await offline.locator('#history li[data-status="refused"][data-reason="invalid"][data-why="older_code"]').count()).toBe(2)
      expect(await offline.locator('#history li[data-status="ok"][data-queued="false"]').count()).toBe(2)
      expect(await checkinsOf(given.identifier)).toMatchObject([{ successful: false, reason: 'invalid', forced: false }])
      expect(await checkinsOf(renewed.identifier)).toMatchObject([{ successful: true, type: 'entry', forced: false }])
      expect(await checkinsOf(received.identifier)).toMatchObject([{ successful: true, type: 'entry', forced: false }])
    }, 240_000)
  })

  describe('a gate that never jams: once the network is back, within 60 s', () => {
    /** The same phone, its network gone, filming these codes: each judged here and queued. */
    async function scanOffline(on: string, codes: string[], options: { clockAheadMs?: number } = {}) {
      const page = await phone(codes, { offline: true, on, ...options })
      await page.goto(`${baseUrl}/scan/`)
      await page.waitForSelector('#net[data-online="false"]')
      await page.waitForSelector(`#queued[data-count="${codes.length}"]`, { timeout: 60_000 })
      return page
    }

    /**
     * The network comes back: the queue empties, the page reads online, and the next scan (typed)
     * goes to the server and moves the counts at once. Answers the time it all took.
     */
    async function networkBack(page: Page, next: { identifier: string }, list: string) {
      const back = Date.now()
      await context!.setOffline(false)
      await page.waitForSelector('#queued[data-count="0"]', { timeout: 60_000 })
      await page.waitForSelector('#net[data-online="true"]', { timeout: 60_000 })
      await page.waitForSelector('#history li[data-queued="true"]', { state: 'detached', timeout: 60_000 })
      const before = (await adm.get(`/checkin-lists/${list}/status`)).json().checked_in as number
      await page.fill('#manual', next.identifier)
      await page.click('#manual-redeem')
      await answer(page, 'ok')
      // Sent to the server, not judged here and queued.
      expect(await page.locator('#queued').getAttribute('data-count')).toBe('0')
      expect(await page.locator('#history li').first().getAttribute('data-queued')).toBe('false')
      const recorded = (await adm.get(`/checkin-lists/${list}/checkins?identifier=${next.identifier}`)).json().data
      expect(recorded).toMatchObject([{ successful: true, type: 'entry' }])
      // The counts follow the scan, not the next sync 30 s later.
      await page
        .locator('#counts')
        .filter({ hasText: `${before + 1} checked in` })
        .waitFor({ timeout: 10_000 })
      return Date.now() - back
    }

    it('a list deleted while the page is offline with a scan queued: that scan shows refused, the other list goes on', async () => {
      const event = await createTestEvent(ctx.app, a.seller.id, { title: 'Two doors' })
      const front = await createTestInventory(ctx.app, event, { date: dayFromToday(0), capacity: 20, name: 'Front' })
      const back = await createTestInventory(ctx.app, event, { date: dayFromToday(0), capacity: 20, name: 'Back' })
      const frontList = (await adm.post(`/events/${event.id}/checkin-lists`, { name: 'Front door', inventory_ids: [front.id] })).json().id
      const backList = (await adm.post(`/events/${event.id}/checkin-lists`, { name: 'Back door', inventory_ids: [back.id] })).json().id
      const [queued, next] = (await buyTickets(ctx.app, a, [{ inventory_id: front.id, quantity: 2 }])).tickets
      const { on } = await pairedPhone('Phone at two doors', [frontList, backList])
      const page = await scanOffline(on, [queued!.code])
      expect((await adm.delete(`/checkin-lists/${backList}`)).statusCode).toBe(204)

      const took = await networkBack(page, next!, frontList)
      await page.waitForSelector('#history li[data-status="refused"][data-reason="invalid_scan"][data-queued="false"]')
      // It named a list deleted since: recorded nowhere, and the page scans the list that is left.
      expect((await adm.get(`/checkin-lists/${frontList}/checkins?identifier=${queued!.identifier}`)).json().data).toEqual([])
      expect(await page.textContent('#counts')).not.toContain('Back door')
      console.info(`scanner page, a list deleted while offline: recovered ${took} ms after the network came back`)
      expect(took).toBeLessThan(60_000)
    }, 180_000)

    it('a list deleted while the page is online: the next scan still goes to the server, on the list that is left', async () => {
      const event = await createTestEvent(ctx.app, a.seller.id, { title: 'Two doors online' })
      const front = await createTestInventory(ctx.app, event, { date: dayFromToday(0), capacity: 20, name: 'Front' })
      const back = await createTestInventory(ctx.app, event, { date: dayFromToday(0), capacity: 20, name: 'Back' })
      const frontList = (await adm.post(`/events/${event.id}/checkin-lists`, { name: 'Front door', inventory_ids: [front.id] })).json().id
      const backList = (await adm.post(`/events/${event.id}/checkin-lists`, { name: 'Back door', inventory_ids: [back.id] })).json().id
      const [ticket] = (await buyTickets(ctx.app, a, [{ inventory_id: front.id, quantity: 1 }])).tickets
      const { page } = await pairedPhone('Phone at two doors, online', [frontList, backList])
      expect((await adm.delete(`/checkin-lists/${backList}`)).statusCode).toBe(204)
      await page.fill('#manual', ticket!.identifier)
      await page.click('#manual-redeem')
      await answer(page, 'ok')
      expect(await page.locator('#queued').getAttribute('data-count')).toBe('0')
      expect((await adm.get(`/checkin-lists/${frontList}/checkins?identifier=${ticket!.identifier}`)).json().data).toMatchObject([{ successful: true }])
      await page.locator('#counts').filter({ hasText: '1 checked in' }).waitFor({ timeout: 10_000 })
      expect(await page.textContent('#counts')).not.toContain('Back door')
    }, 180_000)

    it('a phone clock 6 minutes fast: the queued scans count when the server receives them', async () => {
      const [first, second, next] = (await buyTickets(ctx.app, a, [{ inventory_id: inventoryId, quantity: 3 }])).tickets
      const ahead = { clockAheadMs: 6 * 60_000 }
      const { on } = await pairedPhone('Phone running fast', [listId], ahead)
      const page = await scanOffline(on, [first!.code, second!.code], ahead)

      const took = await networkBack(page, next!, listId)
      for (const ticket of [first!, second!]) {
        const [scan] = await checkinsOf(ticket.identifier)
        expect(scan).toMatchObject({ successful: true, type: 'entry' })
        expect(Date.parse(scan.scanned_at)).toBeLessThanOrEqual(Date.now())
      }
      expect(await page.locator('#history li[data-status="ok"][data-queued="false"]').count()).toBe(3)
      console.info(`scanner page, a clock 6 minutes fast: recovered ${took} ms after the network came back`)
      expect(took).toBeLessThan(60_000)
    }, 180_000)

    it('a junk code in the queue: it shows refused, the scans around it are recorded', async () => {
      const [before, after, next] = (await buyTickets(ctx.app, a, [{ inventory_id: inventoryId, quantity: 3 }])).tickets
      const { on } = await pairedPhone('Phone with junk', [listId])
      // A contact card's QR held up by mistake: its lines end in control characters, which no ticket's code has.
      const page = await scanOffline(on, [before!.code, 'BEGIN:VCARD\nVERSION:3.0\nFN:Gate staff\nEND:VCARD', after!.code])

      const took = await networkBack(page, next!, listId)
      const refused = await page.waitForSelector('#history li[data-status="refused"][data-reason="invalid_scan"][data-queued="false"]')
      expect(await refused.getAttribute('title')).toContain('must not contain control characters')
      for (const ticket of [before!, after!]) expect(await checkinsOf(ticket.identifier)).toMatchObject([{ successful: true, type: 'entry' }])
      console.info(`scanner page, a junk code in the queue: recovered ${took} ms after the network came back`)
      expect(took).toBeLessThan(60_000)
    }, 180_000)
  })
})
