import { createHash, randomUUID } from 'node:crypto'
import { and, asc, count, eq, inArray, sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { checkinDevices, checkinLists, checkins } from '../../src/domain/checkin/checkin.table.js'
import { orders, tickets } from '../../src/domain/orders/orders.table.js'
import { transactions } from '../../src/domain/payments/payments.table.js'
import { exportChunks, exportsTable } from '../../src/domain/reports/exports.table.js'
import { webhookEvents } from '../../src/domain/webhooks/webhooks.table.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { checkOut, subscribeToEverything } from '../factories/checkouts.js'
import { useTwoSellers } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { createStaff } from '../support/staff.js'

/** docs/exports.md: POST /adm/v1/sellers/{id}/exports, GET /adm/v1/exports/{id} and its file. */
const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx, { a: { settings: { timezone: 'America/Sao_Paulo' } } })
let reader: AdmClient
let writer: AdmClient

type Export = {
  id: string
  type: string
  format: string
  status: string
  progress: number
  rows: number | null
  sha256: string | null
  expires_at: string | null
  created_at: string
}
type Value = string | number | boolean | null
type Kind = 'text' | 'money' | 'int' | 'bool'

const HYPERLINK = '=HYPERLINK("http://x","y")'
const CALC = "+cmd|' /C calc'!A0"

const ids = {} as { o1: string; o2: string; o3: string; e1: string; e2: string; validTicket: string }
/** What each export of seller a, unfiltered, holds: the JSON records, in the file's order. */
const expected = {} as Record<'orders' | 'tickets' | 'checkins' | 'transactions', Record<string, Value>[]>

const KINDS: Record<keyof typeof expected, Record<string, Kind>> = {
  orders: {
    id: 'text',
    created_at: 'text',
    status: 'text',
    buyer_email: 'text',
    buyer_name: 'text',
    affiliate_code: 'text',
    coupon_code: 'text',
    payment_method: 'text',
    installments: 'int',
    gross: 'money',
    discount: 'money',
    interest: 'money',
    total: 'money',
    paid_total: 'money',
    refunded_total: 'money',
  },
  tickets: {
    identifier: 'text',
    order_id: 'text',
    event: 'text',
    date: 'text',
    time: 'text',
    inventory: 'text',
    variant: 'text',
    seat: 'text',
    holder: 'text',
    status: 'text',
    price: 'money',
  },
  checkins: { list: 'text', identifier: 'text', type: 'text', successful: 'bool', reason: 'text', scanned_at: 'text', device: 'text' },
  transactions: {
    id: 'text',
    seller_id: 'text',
    order_id: 'text',
    kind: 'text',
    amount: 'money',
    tickets: 'int',
    gross: 'money',
    discount: 'money',
    interest: 'money',
    payment_method: 'text',
    affiliate_code: 'text',
    coupon_code: 'text',
    inventory_id: 'text',
    variant: 'text',
    created_at: 'text',
  },
}

/** A time as São Paulo reads it, `YYYY-MM-DD HH:MM:SS`. */
const saoPaulo = (at: Date) => new Intl.DateTimeFormat('sv-SE', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'medium' }).format(at)

async function setBuyer(orderId: string, name: string, createdAt: string) {
  await ctx.app.db
    .update(orders)
    .set({ buyerName: name, createdAt: new Date(createdAt) })
    .where(eq(orders.id, orderId))
}

beforeAll(async () => {
  reader = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.orders.read'] })).auth)
  writer = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.orders.read', 'adm.orders.write'] })).auth)
  await subscribeToEverything(ctx.app, a.seller.id)
  const e1 = await createTestEvent(ctx.app, a.seller.id, { title: 'Rock, "Live"' })
  const e2 = await createTestEvent(ctx.app, a.seller.id, { title: 'Jazz' })
  const general = await createTestInventory(ctx.app, e1, { name: 'General', price: 5000, date: '2030-05-01' })
  const balcony = await createTestInventory(ctx.app, e1, { name: 'Balcony', price: 3333, date: '2030-05-01', time: '21:00' })
  const jazz = await createTestInventory(ctx.app, e2, { name: 'Floor', price: 1000, date: '2030-06-01' })
  const o1 = (await checkOut(ctx.app, a, [{ inventoryId: general.id, quantity: 2 }])).order
  const o2 = (await checkOut(ctx.app, a, [{ inventoryId: balcony.id, quantity: 1 }], { awaitPayment: true })).order
  const o3 = (await checkOut(ctx.app, a, [{ inventoryId: jazz.id, quantity: 1 }])).order
  await checkOut(ctx.app, b, [{ inventoryId: (await createTestInventory(ctx.app, await createTestEvent(ctx.app, b.seller.id))).id, quantity: 1 }])
  const [refundedTicket, validTicket] = o1.tickets.map((t) => t.identifier).sort()
  const refund = await writer.post(`/orders/${o1.id}/refunds`, { amount: 5000, tickets: [refundedTicket], reason: 'Could not come', reference: 'r-1' })
  expect(refund.statusCode, refund.body).toBe(201)
  // A minute either side of midnight in São Paulo (UTC−3), and a day later.
  await setBuyer(o1.id, HYPERLINK, '2026-03-10T02:59:30Z')
  await setBuyer(o2.id, CALC, '2026-03-10T03:00:30Z')
  await setBuyer(o3.id, 'Ana; Maria', '2026-03-11T12:00:00Z')
  Object.assign(ids, { o1: o1.id, o2: o2.id, o3: o3.id, e1: e1.id, e2: e2.id, validTicket: validTicket! })

  // Scans at the door, written as rows: one admitted, one refused.
  const [device] = await ctx.app.db.insert(checkinDevices).values({ sellerId: a.seller.id, name: 'Gate 1' }).returning()
  const [list] = await ctx.app.db.insert(checkinLists).values({ sellerId: a.seller.id, eventId: e1.id, name: 'Main door' }).returning()
  const ticketIds = await ctx.app.db.select({ id: tickets.id, identifier: tickets.identifier }).from(tickets).where(eq(tickets.orderId, o1.id))
  const idOf = (identifier: string) => ticketIds.find((t) => t.identifier === identifier)!.id
  const scan = (identifier: string, successful: boolean, reason: 'voided' | null, at: string) => ({
    id: randomUUID(),
    sellerId: a.seller.id,
    listId: list!.id,
    deviceId: device!.id,
    ticketId: idOf(identifier),
    identifier,
    type: 'entry' as const,
    successful,
    reason,
    scannedAt: new Date(at),
    answer: {},
    createdAt: new Date(at),
  })
  await ctx.app.db
    .insert(checkins)
    .values([scan(validTicket!, true, null, '2026-03-12T01:00:00Z'), scan(refundedTicket!, false, 'voided', '2026-03-12T01:05:00Z')])

  const email = async (id: string) => (await ctx.app.db.select({ e: orders.buyerEmail }).from(orders).where(eq(orders.id, id)))[0]!.e
  const order = (id: string, created_at: string, status: string, buyer_name: string, gross: number, paid: number, refunded: number) => ({
    id,
    created_at,
    status,
    buyer_email: '',
    buyer_name,
    affiliate_code: null,
    coupon_code: null,
    payment_method: 'pix',
    installments: 1,
    gross,
    discount: 0,
    interest: 0,
    total: gross,
    paid_total: paid,
    refunded_total: refunded,
  })
  expected.orders = [
    { ...order(o1.id, '2026-03-09 23:59:30', 'confirmed', HYPERLINK, 10000, 10000, 5000), buyer_email: await email(o1.id) },
    { ...order(o2.id, '2026-03-10 00:00:30', 'pending', CALC, 3333, 0, 0), buyer_email: await email(o2.id) },
    { ...order(o3.id, '2026-03-11 09:00:00', 'confirmed', 'Ana; Maria', 1000, 1000, 0), buyer_email: await email(o3.id) },
  ]
  const ticket = (identifier: string, orderId: string, event: string, date: string, time: string | null, inventory: string, status: string, price: number) => ({
    identifier,
    order_id: orderId,
    event,
    date,
    time,
    inventory,
    variant: null,
    seat: null,
    holder: null,
    status,
    price,
  })
  expected.tickets = [
    ticket(refundedTicket!, o1.id, 'Rock, "Live"', '2030-05-01', null, 'General', 'voided', 5000),
    ticket(validTicket!, o1.id, 'Rock, "Live"', '2030-05-01', null, 'General', 'valid', 5000),
    ticket(o2.tickets[0]!.identifier, o2.id, 'Rock, "Live"', '2030-05-01', '21:00', 'Balcony', 'pending', 3333),
    ticket(o3.tickets[0]!.identifier, o3.id, 'Jazz', '2030-06-01', null, 'Floor', 'valid', 1000),
  ]
  expected.checkins = [
    { list: 'Main door', identifier: validTicket!, type: 'entry', successful: true, reason: null, scanned_at: '2026-03-11 22:00:00', device: 'Gate 1' },
    { list: 'Main door', identifier: refundedTicket!, type: 'entry', successful: false, reason: 'voided', scanned_at: '2026-03-11 22:05:00', device: 'Gate 1' },
  ]
  const ledger = await ctx.app.db.select().from(transactions).where(eq(transactions.sellerId, a.seller.id)).orderBy(asc(transactions.seq))
  expected.transactions = ledger.map((x) => ({
    id: x.id,
    seller_id: x.sellerId,
    order_id: x.orderId,
    kind: x.kind,
    amount: x.amount,
    tickets: x.tickets,
    gross: x.gross,
    discount: x.discount,
    interest: x.interest,
    payment_method: x.paymentMethod,
    affiliate_code: x.affiliateCode,
    coupon_code: x.couponCode,
    inventory_id: x.inventoryId,
    variant: x.variant,
    created_at: saoPaulo(x.createdAt),
  }))
  expect(expected.transactions.some((x) => Number(x.amount) < 0)).toBe(true)
})

/** Asks for an export and waits, by polling it (a bounded number of times), until it is no longer running. */
async function exportOf(body: Record<string, unknown>, sellerId = a.seller.id): Promise<Export> {
  const created = await reader.post(`/sellers/${sellerId}/exports`, body)
  expect(created.statusCode, created.body).toBe(202)
  return finished(created.json().id)
}

async function finished(id: string): Promise<Export> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const polled = await reader.get(`/exports/${id}`)
    expect(polled.statusCode, polled.body).toBe(200)
    if (polled.json().status !== 'running') return polled.json()
    await ctx.app.exports.settled()
  }
  throw new Error(`export ${id} still running`)
}

async function download(done: Export): Promise<{ body: Buffer; contentType: string; disposition: string }> {
  expect(done.status).toBe('done')
  const res = await reader.get(`/exports/${done.id}/file`)
  expect(res.statusCode, res.body).toBe(200)
  const body = res.rawPayload
  expect(createHash('sha256').update(body).digest('hex')).toBe(done.sha256)
  return { body, contentType: String(res.headers['content-type']), disposition: String(res.headers['content-disposition']) }
}

/** RFC 4180, as a spreadsheet reads it: quoted fields with doubled quotes, CRLF lines. */
function parseCsv(text: string, separator: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"'
        i++
      } else if (c === '"') quoted = false
      else field += c
    } else if (c === '"') quoted = true
    else if (c === separator) {
      row.push(field)
      field = ''
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field)
      rows.push(row)
      row = []
      field = ''
      i++
    } else field += c
  }
  expect(field).toBe('')
  return rows
}

/** A record as a spreadsheet cell shows it: money in reais, formula-looking text behind a `'`. */
function asCells(type: keyof typeof expected, record: Record<string, Value>, decimal: '.' | ','): string[] {
  return Object.entries(KINDS[type]).map(([key, kind]) => {
    const value = record[key] ?? null
    if (value === null) return ''
    if (kind === 'money') return (Number(value) / 100).toFixed(2).replace('.', decimal)
    if (kind === 'text' && /^[=+\-@\t\r]/.test(String(value))) return `'${value}`
    return String(value)
  })
}

describe('exports: each type in each format', () => {
  for (const type of ['orders', 'tickets', 'checkins', 'transactions'] as const) {
    it(`${type} as csv: a header, a row per record, money in reais with a dot, formula-safe text`, async () => {
      const done = await exportOf({ type, format: 'csv' })
      const { body, contentType, disposition } = await download(done)
      expect(contentType).toBe('text/csv; charset=utf-8')
      expect(disposition).toBe(`attachment; filename="${type}-${done.id}.csv"`)
      expect(body[0]).not.toBe(0xef)
      const rows = parseCsv(body.toString('utf8'), ',')
      expect(rows[0]).toEqual(Object.keys(KINDS[type]))
      expect(rows.slice(1)).toEqual(expected[type].map((record) => asCells(type, record, '.')))
      expect(done.rows).toBe(expected[type].length)
      expect(done.progress).toBe(100)
    })

    it(`${type} as csv_br: a UTF-8 BOM, ';' and decimal commas`, async () => {
      const done = await exportOf({ type, format: 'csv_br' })
      const { body, contentType } = await download(done)
      expect(contentType).toBe('text/csv; charset=utf-8')
      expect([...body.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
      const rows = parseCsv(body.subarray(3).toString('utf8'), ';')
      expect(rows[0]).toEqual(Object.keys(KINDS[type]))
      expect(rows.slice(1)).toEqual(expected[type].map((record) => asCells(type, record, ',')))
      expect(done.rows).toBe(expected[type].length)
    })

    it(`${type} as json: an array of objects, money in centavos`, async () => {
      const done = await exportOf({ type, format: 'json' })
      const { body, contentType, disposition } = await download(done)
      expect(contentType).toBe('application/json; charset=utf-8')
      expect(disposition).toBe(`attachment; filename="${type}-${done.id}.json"`)
      expect(JSON.parse(body.toString('utf8'))).toEqual(expected[type])
      expect(done.rows).toBe(expected[type].length)
    })
  }

  it('writes the formula attacks so that no spreadsheet runs them, and negative money as a number', async () => {
    const csv = (await download(await exportOf({ type: 'orders', format: 'csv' }))).body.toString('utf8')
    expect(csv).toContain(`,"'=HYPERLINK(""http://x"",""y"")",`)
    expect(csv).toContain(`,'+cmd|' /C calc'!A0,`)
    expect(csv).not.toMatch(/,=HYPERLINK|,\+cmd/)
    const br = (await download(await exportOf({ type: 'orders', format: 'csv_br' }))).body.toString('utf8')
    expect(br).toContain(`;"'=HYPERLINK(""http://x"",""y"")";`)
    expect(br).toContain(';"Ana; Maria";')
    const ledger = (await download(await exportOf({ type: 'transactions', format: 'csv' }))).body.toString('utf8')
    expect(ledger).toContain(',-50.00,')
    expect(ledger).not.toContain("'-50")
    const ledgerBr = (await download(await exportOf({ type: 'transactions', format: 'csv_br' }))).body.toString('utf8')
    expect(ledgerBr).toContain(';-50,00;')
  })

  it('an empty export is a header alone (an empty array in json), rows 0', async () => {
    const csv = await exportOf({ type: 'orders', format: 'csv', from: '2020-01-01', to: '2020-01-02' })
    expect(csv.rows).toBe(0)
    expect((await download(csv)).body.toString('utf8')).toBe(`${Object.keys(KINDS.orders).join(',')}\r\n`)
    const json = await exportOf({ type: 'tickets', format: 'json', from: '2020-01-01', to: '2020-01-02' })
    expect(JSON.parse((await download(json)).body.toString('utf8'))).toEqual([])
  })
})

describe('exports: filters', () => {
  const jsonOf = async (body: Record<string, unknown>) => JSON.parse((await download(await exportOf({ format: 'json', ...body }))).body.toString('utf8'))

  it('from/to are days in the seller’s time zone, [from, to): orders and tickets by sale', async () => {
    expect((await jsonOf({ type: 'orders', from: '2026-03-10', to: '2026-03-11' })).map((o: { id: string }) => o.id)).toEqual([ids.o2])
    expect((await jsonOf({ type: 'orders', to: '2026-03-10' })).map((o: { id: string }) => o.id)).toEqual([ids.o1])
    expect((await jsonOf({ type: 'tickets', from: '2026-03-11' })).map((t: { order_id: string }) => t.order_id)).toEqual([ids.o3])
  })

  it('check-ins by scan, transactions by creation', async () => {
    expect(await jsonOf({ type: 'checkins', from: '2026-03-11', to: '2026-03-12' })).toEqual(expected.checkins)
    expect(await jsonOf({ type: 'checkins', from: '2026-03-12' })).toEqual([])
    // The ledger's rows were written now, whatever the orders' dates say.
    expect(await jsonOf({ type: 'transactions', to: '2026-03-12' })).toEqual([])
  })

  it('event_id: only what belongs to the event', async () => {
    expect((await jsonOf({ type: 'orders', event_id: ids.e2 })).map((o: { id: string }) => o.id)).toEqual([ids.o3])
    expect((await jsonOf({ type: 'tickets', event_id: ids.e1 })).length).toBe(3)
    expect(await jsonOf({ type: 'checkins', event_id: ids.e2 })).toEqual([])
    const ledger = await jsonOf({ type: 'transactions', event_id: ids.e2 })
    expect(ledger.length).toBeGreaterThan(0)
    expect(ledger.every((x: { order_id: string }) => x.order_id === ids.o3)).toBe(true)
  })

  it('refuses what is not valid: 400, and another seller’s event or an unknown seller: 404', async () => {
    expect((await reader.post(`/sellers/${a.seller.id}/exports`, { type: 'payouts', format: 'csv' })).statusCode).toBe(400)
    expect((await reader.post(`/sellers/${a.seller.id}/exports`, { type: 'orders', format: 'xlsx' })).statusCode).toBe(400)
    expect((await reader.post(`/sellers/${a.seller.id}/exports`, { type: 'orders', format: 'csv', from: '2026-03-10', to: '2026-03-10' })).statusCode).toBe(400)
    expect((await reader.post(`/sellers/${a.seller.id}/exports`, { type: 'orders', format: 'csv', from: '10/03/2026' })).statusCode).toBe(400)
    const otherEvent = await createTestEvent(ctx.app, b.seller.id)
    expect((await reader.post(`/sellers/${a.seller.id}/exports`, { type: 'orders', format: 'csv', event_id: otherEvent.id })).statusCode).toBe(404)
    expect((await reader.post(`/sellers/${randomUUID()}/exports`, { type: 'orders', format: 'csv' })).statusCode).toBe(404)
  })
})

describe('exports: the flow', () => {
  it('answers 202 with the Export running, and webhook export.done carries it once done', async () => {
    const release = ctx.app.exports.hold()
    const created = await reader.post(`/sellers/${a.seller.id}/exports`, { type: 'tickets', format: 'csv' })
    expect(created.statusCode, created.body).toBe(202)
    const running = created.json() as Export
    expect(running).toEqual({
      id: running.id,
      type: 'tickets',
      format: 'csv',
      status: 'running',
      progress: 0,
      rows: null,
      sha256: null,
      expires_at: null,
      created_at: running.created_at,
    })
    // While running, its file is not there yet.
    const early = await reader.get(`/exports/${running.id}/file`)
    expect(early.statusCode).toBe(409)
    expect(early.json().code).toBe('export_running')
    release()
    const done = await finished(running.id)
    expect(done.status).toBe('done')
    expect(Date.parse(done.expires_at!) - Date.now()).toBeGreaterThan(23 * 3600_000)
    expect(Date.parse(done.expires_at!) - Date.now()).toBeLessThanOrEqual(24 * 3600_000 + 60_000)
    const [event] = await ctx.app.db
      .select({ payload: webhookEvents.payload })
      .from(webhookEvents)
      .where(and(eq(webhookEvents.type, 'export.done'), sql`${webhookEvents.payload}->>'id' = ${done.id}`))
    expect(event?.payload).toEqual(done)
  })

  it('at most two run per seller: three asked at once, the third 409 export_running', async () => {
    const release = ctx.app.exports.hold()
    try {
      const answers = await Promise.all([1, 2, 3].map(() => reader.post(`/sellers/${b.seller.id}/exports`, { type: 'orders', format: 'csv' })))
      expect(answers.map((r) => r.statusCode).sort()).toEqual([202, 202, 409])
      expect(answers.find((r) => r.statusCode === 409)!.json().code).toBe('export_running')
      // Another seller is not held back by them.
      expect((await reader.post(`/sellers/${a.seller.id}/exports`, { type: 'orders', format: 'json' })).statusCode).toBe(202)
    } finally {
      release()
    }
    await ctx.app.exports.settled()
    // Done, they no longer count.
    expect((await exportOf({ type: 'orders', format: 'csv' }, b.seller.id)).status).toBe('done')
  })

  it('an unknown export, or its file: 404; without adm.orders.read: 403', async () => {
    expect((await reader.get(`/exports/${randomUUID()}`)).statusCode).toBe(404)
    expect((await reader.get(`/exports/${randomUUID()}/file`)).statusCode).toBe(404)
    const outsider = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.sellers.read'] })).auth)
    const done = await exportOf({ type: 'orders', format: 'csv' })
    expect((await outsider.get(`/exports/${done.id}`)).statusCode).toBe(403)
    expect((await outsider.get(`/exports/${done.id}/file`)).statusCode).toBe(403)
    expect((await outsider.post(`/sellers/${a.seller.id}/exports`, { type: 'orders', format: 'csv' })).statusCode).toBe(403)
  })

  it('a running export whose heartbeat stopped is failed by the sweep, never done: its file 410 export_failed', async () => {
    const release = ctx.app.exports.hold()
    const created = await reader.post(`/sellers/${a.seller.id}/exports`, { type: 'orders', format: 'csv' })
    expect(created.statusCode).toBe(202)
    const id = created.json().id as string
    // Its process "died": the heartbeat is older than EXPORT_STALE_SECONDS (60 s).
    await ctx.app.db.update(exportsTable).set({ heartbeatAt: sql`now() - interval '61 seconds'` }).where(eq(exportsTable.id, id))
    await ctx.app.outbox.runOnce('export_sweep')
    release()
    await ctx.app.exports.settled()
    const failed = (await reader.get(`/exports/${id}`)).json() as Export
    expect(failed.status).toBe('failed')
    expect(failed.sha256).toBeNull()
    const file = await reader.get(`/exports/${id}/file`)
    expect(file.statusCode).toBe(410)
    expect(file.json().code).toBe('export_failed')
    const events = await ctx.app.db.select({ type: webhookEvents.type }).from(webhookEvents).where(sql`${webhookEvents.payload}->>'id' = ${id}`)
    expect(events.map((e) => e.type)).toEqual(['export.failed'])
  })

  it('a fresh heartbeat is not swept', async () => {
    const release = ctx.app.exports.hold()
    const created = await reader.post(`/sellers/${a.seller.id}/exports`, { type: 'orders', format: 'csv' })
    await ctx.app.db.update(exportsTable).set({ heartbeatAt: sql`now() - interval '50 seconds'` }).where(eq(exportsTable.id, created.json().id))
    await ctx.app.outbox.runOnce('export_sweep')
    expect((await reader.get(`/exports/${created.json().id}`)).json().status).toBe('running')
    release()
    expect((await finished(created.json().id)).status).toBe('done')
  })

  it('past expires_at its file is 410 export_expired, and the sweep deletes it', async () => {
    const done = await exportOf({ type: 'tickets', format: 'csv' })
    const chunksOf = async () => Number((await ctx.app.db.select({ n: count() }).from(exportChunks).where(eq(exportChunks.exportId, done.id)))[0]!.n)
    expect(await chunksOf()).toBeGreaterThan(0)
    await ctx.app.outbox.runOnce('export_sweep')
    expect(await chunksOf()).toBeGreaterThan(0)
    await ctx.app.db.update(exportsTable).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(exportsTable.id, done.id))
    const file = await reader.get(`/exports/${done.id}/file`)
    expect(file.statusCode).toBe(410)
    expect(file.json().code).toBe('export_expired')
    await ctx.app.outbox.runOnce('export_sweep')
    expect(await chunksOf()).toBe(0)
    expect((await reader.get(`/exports/${done.id}`)).json().status).toBe('done')
  })

  it('a file of several pieces is served whole, in order', async () => {
    // Buyers with long names make the orders' file span a few 256 KB pieces.
    const long = 'x'.repeat(200_000)
    const before = await ctx.app.db.select({ id: orders.id, name: orders.buyerName }).from(orders).where(eq(orders.sellerId, a.seller.id))
    await ctx.app.db
      .update(orders)
      .set({ buyerName: long })
      .where(inArray(orders.id, [ids.o1, ids.o2, ids.o3]))
    try {
      const done = await exportOf({ type: 'orders', format: 'csv' })
      const pieces = await ctx.app.db.select({ n: count() }).from(exportChunks).where(eq(exportChunks.exportId, done.id))
      expect(Number(pieces[0]!.n)).toBeGreaterThan(1)
      const body = (await download(done)).body.toString('utf8')
      expect(
        parseCsv(body, ',')
          .slice(1)
          .map((row) => row[4]),
      ).toEqual([long, long, long])
    } finally {
      for (const row of before) await ctx.app.db.update(orders).set({ buyerName: row.name }).where(eq(orders.id, row.id))
    }
  })
})
