import { randomUUID } from 'node:crypto'
import { type SQL, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../build-app.js'
import { createTestCoupon, createTestEvent, createTestInventory, dayFromToday } from '../factories/catalog.js'
import type { TestOrder } from '../factories/checkouts.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { createTestAffiliate, useTwoSellers } from '../factories/sellers.js'
import { type AdmClient, admClient } from '../support/adm-client.js'
import { ledgerViolations } from '../support/ledger-invariants.js'
import { createStaff } from '../support/staff.js'

/**
 * docs/reports.md: the sales report and the affiliate statement, over a fixed set of sales of a
 * seller in São Paulo (UTC−3) placed through the API, their ledger rows then moved to known
 * instants of November 2026 (the clock the reports read is the ledger's `created_at`).
 */
const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx)
let adm: AdmClient
let gen: string
let vip: string
let show: string
let showEvent: string
let mainEvent: string
/** The tickets' dates: GEN and VIP on `mainDay`, SHOW on `showDay`. */
const mainDay = dayFromToday(13)
const showDay = dayFromToday(20)
let couponCode: string
const AFF = `AFF${randomUUID().slice(0, 6).toUpperCase()}`
const orders: Record<string, TestOrder> = {}

type Line = { inventoryId: string; quantity: number; variant?: string }
type Options = { method: 'pix' | 'boleto' | 'credit_card'; installments?: number; coupon?: string; affiliate?: string; awaitPayment?: boolean }

/** A new customer's order through the storefront: basket, coupon, checkout. */
async function buy(lines: Line[], options: Options): Promise<TestOrder> {
  const customer = await insertSignedInCustomer(ctx.app, a)
  const headers = { ...customer.headers, ...(options.affiliate ? { 'x-affiliate-code': options.affiliate } : {}) }
  const basket = await ctx.app.inject({
    method: 'POST',
    url: '/stf/v1/baskets',
    headers,
    payload: { items: lines.map((line) => ({ inventory_id: line.inventoryId, quantity: line.quantity, ...(line.variant ? { variant: line.variant } : {}) })) },
  })
  expect(basket.statusCode, basket.body).toBe(201)
  if (options.coupon) {
    const applied = await ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${basket.json().id}/coupon`, headers, payload: { code: options.coupon } })
    expect(applied.statusCode, applied.body).toBe(200)
  }
  const order = await ctx.app.inject({
    method: 'POST',
    url: `/stf/v1/baskets/${basket.json().id}/checkout`,
    headers,
    payload: {
      payment_method: options.method,
      ...(options.installments ? { installments: options.installments } : {}),
      ...(options.awaitPayment ? { await_payment: true } : {}),
    },
  })
  expect(order.statusCode, order.body).toBe(201)
  return order.json()
}

/** A change behind the application's back (triggers off for this transaction: the ledger is append-only). */
const quietly = (statement: SQL) =>
  ctx.app.db.transaction(async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`)
    await tx.execute(statement)
  })

/** Moves the ledger rows of an order written in the last hour (the step just taken) to `at`. */
const placeAt = (orderId: string, at: string) =>
  quietly(sql`update transactions set created_at = ${at}::timestamptz where order_id = ${orderId} and created_at > now() - interval '1 hour'`)

const refund = async (orderId: string, body: object) => {
  const res = await adm.post(`/orders/${orderId}/refunds`, { reason: 'report test', ...body })
  expect(res.statusCode, res.body).toBe(201)
  return res.json() as { id: string; status: string }
}

const report = (query: string, sellerId = a.seller.id) => adm.get(`/sellers/${sellerId}/reports/sales?${query}`)
const statement = (code: string, query: string, sellerId = a.seller.id) => adm.get(`/sellers/${sellerId}/affiliates/${code}/statement?${query}`)

type Measures = { tickets: number; gross: number; discount: number; interest: number; net: number; refunded: number }
type Report = { from: string; to: string; basis: string; currency: string; rows: ({ key: Record<string, string | null> } & Measures)[]; totals: Measures }

async function readReport(query: string): Promise<Report> {
  const res = await report(query)
  expect(res.statusCode, res.body).toBe(200)
  const body = res.json() as Report
  // Rows add up to the totals, exactly, whatever the grouping.
  for (const measure of ['tickets', 'gross', 'discount', 'interest', 'net', 'refunded'] as const) {
    expect(
      body.rows.reduce((sum, row) => sum + row[measure], 0),
      measure,
    ).toBe(body.totals[measure])
  }
  for (const row of body.rows) expect(row.net).toBe(row.gross - row.discount + row.interest)
  return body
}

const NOVEMBER = 'from=2026-11-01&to=2026-12-01'

beforeAll(async () => {
  adm = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.orders.read', 'adm.orders.write', 'adm.sellers.write', 'adm.sellers.read'] })).auth)
  const main = await createTestEvent(ctx.app, a.seller.id)
  const other = await createTestEvent(ctx.app, a.seller.id)
  mainEvent = main.id
  showEvent = other.id
  gen = (await createTestInventory(ctx.app, main, { price: 5000, capacity: 100, date: mainDay, name: 'GEN' })).id
  vip = (await createTestInventory(ctx.app, main, { price: 12000, capacity: 100, date: mainDay, name: 'VIP' })).id
  show = (await createTestInventory(ctx.app, other, { price: 3000, capacity: 100, date: showDay, name: 'SHOW' })).id
  couponCode = (await createTestCoupon(ctx.app, a.seller.id, { type: 'percent', value: 10 })).code
  const created = await adm.post(`/sellers/${a.seller.id}/affiliates`, { code: AFF, name: 'Blog', commission_rate: 0.0425 })
  expect(created.statusCode, created.body).toBe(201)

  // October: the affiliate sells a VIP ticket (pix), refunded with its ticket in November (a clawback).
  orders.o0 = await buy([{ inventoryId: vip, quantity: 1 }], { method: 'pix', affiliate: AFF })
  await placeAt(orders.o0.id, '2026-10-15T15:00:00Z')
  // A minute before midnight in São Paulo (02:59 UTC): two GEN and a VIP, a 10 % coupon, 3 installments with interest.
  orders.o1 = await buy(
    [
      { inventoryId: gen, quantity: 2 },
      { inventoryId: vip, quantity: 1 },
    ],
    { method: 'credit_card', installments: 3, coupon: couponCode, affiliate: AFF },
  )
  await placeAt(orders.o1.id, '2026-11-10T02:59:00Z')
  // A minute after midnight: a GEN ticket by pix.
  orders.o2 = await buy([{ inventoryId: gen, quantity: 1 }], { method: 'pix', affiliate: AFF })
  await placeAt(orders.o2.id, '2026-11-10T03:01:00Z')
  // A boleto awaiting payment, paid later; a pix awaiting payment that expires (no sale).
  orders.o3 = await buy([{ inventoryId: show, quantity: 2 }], { method: 'boleto', awaitPayment: true })
  const paid = await ctx.app.inject({
    method: 'POST',
    url: `/stf/v1/orders/${orders.o3.id}/payments`,
    headers: a.auth,
    payload: { amount: orders.o3.totals.total, reference: 'boleto-1' },
  })
  expect(paid.statusCode, paid.body).toBe(201)
  await placeAt(orders.o3.id, '2026-11-10T15:00:00Z')
  orders.o4 = await buy([{ inventoryId: show, quantity: 1 }], { method: 'pix', awaitPayment: true })
  await quietly(sql`update orders set payment_due_at = now() - interval '1 second' where id = ${orders.o4.id}`)
  await ctx.app.outbox.runOnce('order_expiry')
  expect((await adm.get(`/orders/${orders.o4.id}`)).json().status).toBe('expired')

  // A partial refund with a GEN ticket of o1 (done at once), then one without tickets (1001 centavos, split by net).
  await refund(orders.o1.id, { amount: 3000, tickets: [orders.o1.tickets.find((t) => t.inventory_id === gen)!.identifier], reference: 'r-1' })
  await placeAt(orders.o1.id, '2026-11-10T12:00:00Z')
  await refund(orders.o1.id, { amount: 1001, reference: 'r-2' })
  await placeAt(orders.o1.id, '2026-11-10T17:00:00Z')
  // A full refund of o2 without tickets: the order is cancelled and voided at once, the money confirmed the next day.
  const full = await refund(orders.o2.id, { amount: orders.o2.totals.total })
  await placeAt(orders.o2.id, '2026-11-10T18:00:00Z')
  expect((await adm.post(`/refunds/${full.id}/confirm`, { reference: 'r-3' })).statusCode).toBe(200)
  await placeAt(orders.o2.id, '2026-11-11T13:00:00Z')
  // A void without refund: one SHOW ticket of o3.
  const voided = await adm.post(`/orders/${orders.o3.id}/tickets/${orders.o3.tickets[0]!.identifier}/void`)
  expect(voided.statusCode, voided.body).toBe(200)
  await placeAt(orders.o3.id, '2026-11-10T20:00:00Z')
  // The October sale's ticket refunded in November: a clawback of the affiliate.
  await refund(orders.o0.id, { amount: 12000, tickets: [orders.o0.tickets[0]!.identifier], reference: 'r-4' })
  await placeAt(orders.o0.id, '2026-11-10T19:00:00Z')

  // Seller b's sale, on the same day: never in seller a's report.
  const bInventory = await createTestInventory(ctx.app, await createTestEvent(ctx.app, b.seller.id), { price: 777 })
  const customer = await insertSignedInCustomer(ctx.app, b)
  const bBasket = await ctx.app.inject({
    method: 'POST',
    url: '/stf/v1/baskets',
    headers: customer.headers,
    payload: { items: [{ inventory_id: bInventory.id, quantity: 1 }] },
  })
  const bOrder = await ctx.app.inject({
    method: 'POST',
    url: `/stf/v1/baskets/${bBasket.json().id}/checkout`,
    headers: customer.headers,
    payload: { payment_method: 'pix' },
  })
  expect(bOrder.statusCode, bOrder.body).toBe(201)
  await placeAt(bOrder.json().id, '2026-11-10T12:00:00Z')
})

afterAll(async () => {
  expect(await ledgerViolations(ctx.app.db)).toEqual([])
})

const zero = { tickets: 0, gross: 0, discount: 0, interest: 0, net: 0, refunded: 0 }
/**
 * The figures, by hand. o1: GEN 2 × 5000 and VIP 12000, coupon 10 % (1000 and 1200), interest 1197
 * spread by item total 9000 : 10800 → 544 and 653 (largest remainder). Its GEN sale row: 2 tickets,
 * net 9544; its VIP row: net 11453. Voiding one GEN ticket of it: −5000, −500, −272 (⌊544 / 2⌋).
 * The 1001 refunded without tickets, by net 9544 : 11453 → 455.03 and 545.99: 455 and 546.
 */
const GEN_ROW = { tickets: 1, gross: 5000, discount: 500, interest: 272, net: 4772, refunded: 3000 + 455 + 5000 }
const VIP_ROW = { tickets: 1, gross: 12000, discount: 1200, interest: 653, net: 11453, refunded: 546 + 12000 }

describe('GET /adm/v1/sellers/{id}/reports/sales', () => {
  it('answers the period by the day the ledger wrote it in São Paulo: a minute before midnight is the day before', async () => {
    const body = await readReport(`${NOVEMBER}&group_by=day`)
    expect(body).toMatchObject({ from: '2026-11-01', to: '2026-12-01', basis: 'sold', currency: 'BRL' })
    expect(body.rows).toEqual([
      // o1 at 23:59 local.
      { key: { day: '2026-11-09' }, tickets: 3, gross: 22000, discount: 2200, interest: 1197, net: 20997, refunded: 0 },
      // o2 (+1 GEN) and o3 (+2 SHOW, its boleto paid); voids: a GEN of o1, o2's GEN, a SHOW of o3, o0's VIP;
      // refunds done: 3000 + 1001 (o1) + 12000 (o0).
      { key: { day: '2026-11-10' }, tickets: -1, gross: -14000, discount: -500, interest: -272, net: -13772, refunded: 16001 },
      // o2's refund, confirmed the next day; nothing else that day.
      { key: { day: '2026-11-11' }, ...zero, refunded: 5000 },
    ])
    expect(body.totals).toEqual({ tickets: 2, gross: 8000, discount: 1700, interest: 925, net: 7225, refunded: 21001 })
  })

  it('reads [from, to) in the seller’s time zone: the sales a minute either side of midnight fall on their own days', async () => {
    const before = await readReport('from=2026-11-09&to=2026-11-10')
    expect(before.rows.map((row) => row.key)).toEqual([{ day: '2026-11-09' }])
    expect(before.totals.net).toBe(20997)
    const after = await readReport('from=2026-11-10&to=2026-11-11&group_by=payment_method')
    // o2 by pix at 00:01 is in; o1 (credit card, 23:59 the day before) only through its void and refunds.
    expect(after.rows).toEqual([
      { key: { payment_method: 'boleto' }, tickets: 1, gross: 3000, discount: 0, interest: 0, net: 3000, refunded: 0 },
      { key: { payment_method: 'credit_card' }, tickets: -1, gross: -5000, discount: -500, interest: -272, net: -4772, refunded: 4001 },
      { key: { payment_method: 'pix' }, tickets: -1, gross: -12000, discount: 0, interest: 0, net: -12000, refunded: 12000 },
    ])
  })

  it('groups by inventory: discount and interest as the ledger split them, a refund without tickets by net, largest remainder', async () => {
    const body = await readReport(`${NOVEMBER}&group_by=inventory`)
    expect(body.rows).toEqual(
      [
        // The VIP of o1 sold and o0's VIP (sold in October) voided: 0 tickets, but its discount and interest stay.
        { key: { inventory_id: vip }, tickets: 0, gross: 0, discount: 1200, interest: 653, net: -547, refunded: 546 + 12000 },
        { key: { inventory_id: gen }, ...GEN_ROW },
        { key: { inventory_id: show }, tickets: 1, gross: 3000, discount: 0, interest: 0, net: 3000, refunded: 0 },
      ].sort((x, y) => (x.key.inventory_id < y.key.inventory_id ? -1 : 1)),
    )
    expect(body.totals).toEqual({ tickets: 2, gross: 8000, discount: 1700, interest: 925, net: 7225, refunded: 21001 })
  })

  it('groups by several dimensions at once, a key holding only those, null where an entry has none', async () => {
    const body = await readReport(`${NOVEMBER}&group_by=affiliate,coupon,event`)
    expect(body.rows).toEqual([
      // o1 (coupon): its sale, a GEN voided, 3000 + 1001 refunded.
      {
        key: { affiliate_code: AFF, coupon_code: couponCode, event_id: mainEvent },
        tickets: 2,
        gross: 17000,
        discount: 1700,
        interest: 925,
        net: 16225,
        refunded: 4001,
      },
      // o2 sold and voided (5000 refunded), o0's VIP voided (12000 refunded).
      {
        key: { affiliate_code: AFF, coupon_code: null, event_id: mainEvent },
        tickets: -1,
        gross: -12000,
        discount: 0,
        interest: 0,
        net: -12000,
        refunded: 17000,
      },
      { key: { affiliate_code: null, coupon_code: null, event_id: showEvent }, tickets: 1, gross: 3000, discount: 0, interest: 0, net: 3000, refunded: 0 },
    ])
    for (const groupBy of ['variant', 'payment_method', 'day,inventory,variant', 'coupon', 'event,day']) {
      expect((await readReport(`${NOVEMBER}&group_by=${groupBy}`)).totals, groupBy).toEqual(body.totals)
    }
    expect((await readReport(`${NOVEMBER}&group_by=variant`)).rows).toEqual([{ key: { variant: null }, ...body.totals }])
  })

  it('groups by variant, the variant sold on each item', async () => {
    const halfPrice = await createTestEvent(ctx.app, a.seller.id)
    const inventory = await createTestInventory(ctx.app, halfPrice, {
      price: 5000,
      capacity: 10,
      date: dayFromToday(40),
      variants: [
        { name: 'Inteira', description: 'Full price', type: 'full' },
        { name: 'Meia', description: 'Students', type: 'half', price: 2500 },
      ],
    })
    const order = await buy(
      [
        { inventoryId: inventory.id, quantity: 1, variant: 'Inteira' },
        { inventoryId: inventory.id, quantity: 2, variant: 'Meia' },
      ],
      { method: 'pix' },
    )
    await placeAt(order.id, '2026-09-15T12:00:00Z')
    const body = await readReport('from=2026-09-01&to=2026-10-01&group_by=variant,inventory')
    expect(body.rows).toEqual([
      { key: { variant: 'Inteira', inventory_id: inventory.id }, tickets: 1, gross: 5000, discount: 0, interest: 0, net: 5000, refunded: 0 },
      { key: { variant: 'Meia', inventory_id: inventory.id }, tickets: 2, gross: 5000, discount: 0, interest: 0, net: 5000, refunded: 0 },
    ])
  })

  it('basis=event dates sales, voids and refunds by their tickets’ date, whenever they happened', async () => {
    const main = await readReport(`from=${mainDay}&to=${showDay}&basis=event&group_by=day,inventory`)
    expect(main.basis).toBe('event')
    // Every GEN and VIP ticket, October's included; the refunds of their orders with them.
    expect(main.rows).toEqual(
      [
        { key: { day: mainDay, inventory_id: gen }, ...GEN_ROW },
        { key: { day: mainDay, inventory_id: vip }, ...VIP_ROW },
      ].sort((x, y) => (x.key.inventory_id < y.key.inventory_id ? -1 : 1)),
    )
    const both = await readReport(`from=${mainDay}&to=${dayFromToday(21)}&basis=event`)
    expect(both.rows).toEqual([
      { key: { day: mainDay }, tickets: 2, gross: 17000, discount: 1700, interest: 925, net: 16225, refunded: 21001 },
      { key: { day: showDay }, tickets: 1, gross: 3000, discount: 0, interest: 0, net: 3000, refunded: 0 },
    ])
    // Under basis=sold the same period (December) holds nothing: every row was written in October and November.
    expect((await readReport(`from=${mainDay}&to=${dayFromToday(21)}`)).rows).toEqual([])
  })

  it('defaults to the 30 days up to tomorrow in the seller’s time zone, by day; an expired order and another seller’s sales count nothing', async () => {
    const res = await report('')
    expect(res.statusCode, res.body).toBe(200)
    const today = (await ctx.app.db.execute<{ d: string }>(sql`select (now() at time zone 'America/Sao_Paulo')::date::text as d`)).rows[0]!.d
    const tomorrow = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)
    expect(res.json()).toMatchObject({ to: tomorrow, from: new Date(Date.parse(`${tomorrow}T00:00:00Z`) - 30 * 86_400_000).toISOString().slice(0, 10) })
    // The same as asking for that period by day; o4 expired unpaid and wrote nothing to count.
    expect(res.json().rows).toEqual((await readReport(`from=${res.json().from}&to=${tomorrow}&group_by=day`)).rows)
    const o4Rows = await ctx.app.db.execute(sql`select 1 from transactions where order_id = ${orders.o4!.id}`)
    expect(o4Rows.rows).toEqual([])
    const other = await adm.get(`/sellers/${b.seller.id}/reports/sales?${NOVEMBER}`)
    expect(other.json().rows).toEqual([{ key: { day: '2026-11-10' }, tickets: 1, gross: 777, discount: 0, interest: 0, net: 777, refunded: 0 }])
  })

  it('refuses a period over 366 days, to not after from, an unknown group_by or basis with 400; an unknown seller with 404', async () => {
    const refused = async (query: string, path: string) => {
      const res = await report(query)
      expect(res.statusCode, query).toBe(400)
      expect(res.json().code).toBe('validation_error')
      expect(res.json().details.map((d: { path: string }) => d.path)).toContain(`querystring.${path}`)
    }
    await refused('from=2025-01-01&to=2026-01-03', 'to')
    await refused('from=2026-11-10&to=2026-11-10', 'to')
    await refused('from=2026-11-10&to=2026-11-09', 'to')
    await refused('group_by=day,weekday', 'group_by')
    await refused('group_by=', 'group_by')
    await refused('basis=refund', 'basis')
    await refused('from=2026-02-30', 'from')
    // 366 days exactly is a year of a leap year: allowed.
    expect((await report('from=2028-01-01&to=2029-01-01')).statusCode).toBe(200)
    expect((await report(NOVEMBER, randomUUID())).statusCode).toBe(404)
    const reader = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.sellers.read'] })).auth)
    expect((await reader.get(`/sellers/${a.seller.id}/reports/sales`)).statusCode).toBe(403)
  })
})

describe('GET /adm/v1/sellers/{id}/affiliates/{code}/statement', () => {
  beforeAll(async () => {
    const listed = await adm.get(`/sellers/${a.seller.id}/affiliates?limit=100`)
    const affiliate = listed.json().data.find((row: { code: string }) => row.code === AFF)
    expect(affiliate.commission_rate).toBe(0.0425)
    expect((await adm.put(`/affiliates/${affiliate.id}`, { commission_rate: 0.025 })).json().commission_rate).toBe(0.025)
  })

  it('owes the commission on the net of coupons of the period, less the clawback of an earlier period’s sale refunded in it', async () => {
    const res = await statement(AFF.toLowerCase(), NOVEMBER)
    expect(res.statusCode, res.body).toBe(200)
    // Sold: o1 (3 tickets, 22000, coupon 2200) and o2 (1, 5000); voided in the period: a GEN of o1 (5000, 500) and o2's GEN.
    // net 15300 × 0.025 = 382.5 → 383 (half-up); clawback: o0's VIP, sold in October, 12000 × 0.025 = 300.
    expect(res.json()).toEqual({
      affiliate_code: AFF,
      from: '2026-11-01',
      to: '2026-12-01',
      tickets: 2,
      gross: 17000,
      discount: 1700,
      net: 15300,
      commission_rate: 0.025,
      commission: 383,
      clawback: 300,
      owed: 83,
    })
  })

  it('nets out the voids of sales of the same period: October alone, and October with November', async () => {
    expect((await statement(AFF, 'from=2026-10-01&to=2026-11-01')).json()).toMatchObject({
      tickets: 1,
      gross: 12000,
      discount: 0,
      net: 12000,
      commission: 300,
      clawback: 0,
      owed: 300,
    })
    expect((await statement(AFF, 'from=2026-10-01&to=2026-12-01')).json()).toMatchObject({
      tickets: 2,
      gross: 17000,
      discount: 1700,
      net: 15300,
      commission: 383,
      clawback: 0,
      owed: 383,
    })
  })

  it('answers 404 for an unknown affiliate, another seller’s, or an unknown seller; 400 for a bad period', async () => {
    expect((await statement('NOSUCH', NOVEMBER)).statusCode).toBe(404)
    const theirs = await createTestAffiliate(ctx.app, b.seller.id)
    expect((await statement(theirs.code, NOVEMBER)).statusCode).toBe(404)
    expect((await statement(theirs.code, NOVEMBER, b.seller.id)).json()).toMatchObject({ tickets: 0, net: 0, commission: 0, owed: 0 })
    expect((await statement(AFF, NOVEMBER, randomUUID())).statusCode).toBe(404)
    expect((await statement(AFF, 'from=2025-01-01&to=2026-06-01')).statusCode).toBe(400)
    expect((await statement(AFF, 'from=2026-11-02&to=2026-11-01')).statusCode).toBe(400)
  })
})
