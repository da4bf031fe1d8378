import { randomUUID } from 'node:crypto'
import { count, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { orderItems } from '../../src/domain/orders/orders.table.js'
import type { TransactionView as Transaction } from '../../src/domain/payments/list-transactions.js'
import { transactions } from '../../src/domain/payments/payments.table.js'
import pg from 'pg'
import { useTestApp } from '../build-app.js'
import { testDatabaseUrl, usesPostgres } from '../support/database.js'
import { createTestCoupon, createTestEvent, createTestInventory } from '../factories/catalog.js'
import { checkOut, type TestOrder } from '../factories/checkouts.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { useTwoSellers } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { expectError } from '../support/customer-auth.js'
import { ledgerViolations } from '../support/ledger-invariants.js'
import { createStaff } from '../support/staff.js'

/** docs/payments.md: the ledger, GET /adm/v1/sellers/{id}/transactions, append-only. */
const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx)
let writer: AdmClient
let reader: AdmClient
let outsider: AdmClient
let inventoryId: string
let balconyId: string
/** Seller a's orders, in the order they were placed. */
const placed: TestOrder[] = []
let couponCode: string

type Page = { data: Transaction[]; next_cursor: string | null }

/** A basket with a 10 % coupon, paid by credit card in 3 installments (with interest), through the storefront. */
async function buyWithCouponInInstallments(): Promise<TestOrder> {
  const coupon = await createTestCoupon(ctx.app, a.seller.id)
  couponCode = coupon.code
  const customer = await insertSignedInCustomer(ctx.app, a)
  const basket = await ctx.app.inject({
    method: 'POST',
    url: '/stf/v1/baskets',
    headers: customer.headers,
    payload: {
      items: [
        { inventory_id: inventoryId, quantity: 2 },
        { inventory_id: balconyId, quantity: 1 },
      ],
    },
  })
  expect(basket.statusCode, basket.body).toBe(201)
  const applied = await ctx.app.inject({
    method: 'POST',
    url: `/stf/v1/baskets/${basket.json().id}/coupon`,
    headers: customer.headers,
    payload: { code: coupon.code },
  })
  expect(applied.statusCode, applied.body).toBe(200)
  const order = await ctx.app.inject({
    method: 'POST',
    url: `/stf/v1/baskets/${basket.json().id}/checkout`,
    headers: customer.headers,
    payload: { payment_method: 'credit_card', installments: 3 },
  })
  expect(order.statusCode, order.body).toBe(201)
  return order.json()
}

beforeAll(async () => {
  writer = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.orders.read', 'adm.orders.write'] })).auth)
  reader = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.orders.read'] })).auth)
  outsider = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.sellers.read'] })).auth)
  const event = await createTestEvent(ctx.app, a.seller.id)
  inventoryId = (await createTestInventory(ctx.app, event, { price: 5000, capacity: 500 })).id
  balconyId = (await createTestInventory(ctx.app, event, { price: 3333, capacity: 500, name: 'Balcony' })).id
  // A sale with a coupon and interest; a ticket of it refunded and its refund confirmed; a plain sale; another seller's sale.
  const first = await buyWithCouponInInstallments()
  const refunded = await writer.post(`/orders/${first.id}/refunds`, { amount: 3000, tickets: [first.tickets[0]!.identifier], reason: 'Could not come' })
  expect(refunded.statusCode, refunded.body).toBe(201)
  expect((await writer.post(`/refunds/${refunded.json().id}/confirm`, { reference: 'cc-chargeback-1' })).statusCode).toBe(200)
  placed.push((await writer.get(`/orders/${first.id}`)).json())
  placed.push((await checkOut(ctx.app, a, [{ inventoryId, quantity: 1 }])).order)
  placed.push((await checkOut(ctx.app, a, [{ inventoryId: balconyId, quantity: 3 }], { awaitPayment: true })).order)
  const otherInventory = await createTestInventory(ctx.app, await createTestEvent(ctx.app, b.seller.id))
  await checkOut(ctx.app, b, [{ inventoryId: otherInventory.id, quantity: 1 }])
})

afterAll(async () => {
  expect(await ledgerViolations(ctx.app.db)).toEqual([])
})

const list = (query = '', client: AdmClient = reader, sellerId = a.seller.id) => client.get(`/sellers/${sellerId}/transactions${query}`)
const listAll = async (query = ''): Promise<Transaction[]> => {
  const res = await list(query)
  expect(res.statusCode, res.body).toBe(200)
  return (res.json() as Page).data
}

/**
 * The listing shows a row once every transaction older than its own has ended, in the whole
 * database server (other test files' work included, on PostgreSQL): wait until it shows every row
 * the table holds for the seller, as a reader at the end of the ledger would.
 */
async function settled(sellerId = a.seller.id) {
  const [written] = await ctx.app.db.select({ n: count() }).from(transactions).where(eq(transactions.sellerId, sellerId))
  await expect.poll(async () => (await list('?limit=1000', reader, sellerId)).json().data.length, { timeout: 60_000 }).toBe(Number(written!.n))
}

describe('GET /adm/v1/sellers/{id}/transactions', () => {
  beforeEach(async () => {
    await settled(a.seller.id)
    await settled(b.seller.id)
  })

  it('lists the seller’s ledger oldest first, each row a Transaction, and nothing of orders never paid nor of other sellers', async () => {
    const res = await list()
    expect(res.statusCode, res.body).toBe(200)
    const page = res.json() as Page
    expect(page.next_cursor).toBeNull()
    expect(Object.keys(page.data[0]!).sort()).toEqual(
      [
        'id',
        'seller_id',
        'order_id',
        'kind',
        'amount',
        'tickets',
        'gross',
        'discount',
        'interest',
        'payment_method',
        'affiliate_code',
        'coupon_code',
        'inventory_id',
        'variant',
        'created_at',
      ].sort(),
    )
    const [first, second, pending] = placed as [TestOrder, TestOrder, TestOrder]
    expect(page.data.every((row) => row.seller_id === a.seller.id)).toBe(true)
    expect(page.data.map((row) => [row.order_id, row.kind])).toEqual([
      [first.id, 'sale'],
      [first.id, 'sale'],
      [first.id, 'payment'],
      [first.id, 'void'],
      [first.id, 'refund'],
      [second.id, 'sale'],
      [second.id, 'payment'],
    ])
    expect(page.data.some((row) => row.order_id === pending.id)).toBe(false)

    const [sale, balcony, payment, voided, refund] = page.data as [Transaction, Transaction, Transaction, Transaction, Transaction]
    // The sale of the first order: value after its coupon with the interest of its installments, one row per item.
    expect(sale).toMatchObject({ inventory_id: inventoryId, tickets: 2, gross: 10000, payment_method: 'credit_card', variant: null })
    expect([sale.coupon_code, balcony.coupon_code, payment.coupon_code]).toEqual([couponCode, couponCode, couponCode])
    expect(balcony).toMatchObject({ inventory_id: balconyId, tickets: 1, gross: 3333 })
    for (const row of [sale, balcony, voided]) expect(row.amount).toBe(row.gross - row.discount + row.interest)
    expect(sale.discount + balcony.discount).toBe(first.totals.discount)
    expect(sale.interest + balcony.interest).toBe(first.totals.interest)
    expect(first.totals.interest).toBeGreaterThan(0)
    expect(sale.amount + balcony.amount).toBe(first.totals.total)
    expect(payment).toMatchObject({
      amount: first.totals.total,
      tickets: 0,
      gross: 0,
      discount: 0,
      interest: 0,
      inventory_id: null,
      payment_method: 'credit_card',
    })
    // One ticket of two left: half of its item's sale, whatever the refund gave back.
    expect(voided).toMatchObject({ tickets: -1, gross: -5000, inventory_id: inventoryId })
    expect(voided).toMatchObject({ discount: -Math.floor(sale.discount / 2), interest: -Math.floor(sale.interest / 2) })
    expect(voided.amount).toBe(-(5000 - Math.floor(sale.discount / 2) + Math.floor(sale.interest / 2)))
    expect(refund).toMatchObject({ amount: -3000, tickets: 0, inventory_id: null })
    // Money rows add up to what the order holds.
    expect(payment.amount + refund.amount).toBe(first.paid_total - first.refunded_total)
  })

  it('filters by order and by [from, to) on created_at', async () => {
    const all = await listAll()
    const [first, second] = placed as [TestOrder, TestOrder]
    expect((await listAll(`?order_id=${second.id}`)).map((row) => row.kind)).toEqual(['sale', 'payment'])
    expect(await listAll(`?order_id=${randomUUID()}`)).toEqual([])
    const secondStarts = all.find((row) => row.order_id === second.id)!.created_at
    const from = await listAll(`?from=${secondStarts}`)
    const before = await listAll(`?to=${secondStarts}`)
    expect(from.map((row) => row.id)).toEqual(all.filter((row) => Date.parse(row.created_at) >= Date.parse(secondStarts)).map((row) => row.id))
    expect(before.map((row) => row.id)).toEqual(all.filter((row) => Date.parse(row.created_at) < Date.parse(secondStarts)).map((row) => row.id))
    expect([...before, ...from].map((row) => row.id)).toEqual(all.map((row) => row.id))
    expect(from.some((row) => row.order_id === second.id) && before.some((row) => row.order_id === first.id)).toBe(true)
    expect(await listAll(`?from=${secondStarts}&to=${secondStarts}`)).toEqual([])
    // An offset is an instant like any other.
    expect(await listAll('?from=2199-12-31T00:00:00-03:00')).toEqual([])
    expect(await listAll('?to=1900-01-01T00:00:00Z')).toEqual([])
  })

  it('pages with an opaque cursor until next_cursor is null, neither skipping nor repeating', async () => {
    const all = await listAll('?limit=1000')
    const seen: Transaction[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const page = (await list(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).json() as Page
      expect(page.data.length).toBeLessThanOrEqual(2)
      seen.push(...page.data)
      cursor = page.next_cursor
      pages++
    } while (cursor !== null && pages < 20)
    expect(seen.map((row) => row.id)).toEqual(all.map((row) => row.id))
    expect(pages).toBe(Math.ceil(all.length / 2))
    // The cursor carries the order filter's place too.
    const firstOrder = placed[0]!.id
    const byOrder = (await list(`?order_id=${firstOrder}&limit=3`)).json() as Page
    const rest = (await list(`?order_id=${firstOrder}&limit=3&cursor=${byOrder.next_cursor}`)).json() as Page
    expect([...byOrder.data, ...rest.data].map((row) => row.kind)).toEqual(['sale', 'sale', 'payment', 'void', 'refund'])
    expect(rest.next_cursor).toBeNull()
  })

  it.runIf(usesPostgres())('lists no row past one whose transaction is still running, so a later commit is never paged past', async () => {
    const before = await listAll('?limit=1000')
    // An older transaction, still running, that has an id (as a checkout writing the ledger has).
    const older = new pg.Client({ connectionString: await testDatabaseUrl() })
    await older.connect()
    try {
      await older.query('begin')
      await older.query('select pg_current_xact_id()')
      // A newer transaction writes the ledger and commits (a paid checkout).
      await checkOut(ctx.app, a, [{ inventoryId, quantity: 1 }])
      // Not listed while the older one runs: a reader at the end never steps past a row the older one may yet commit.
      expect((await listAll('?limit=1000')).map((row) => row.id)).toEqual(before.map((row) => row.id))
    } finally {
      await older.query('rollback')
      await older.end()
    }
    await settled()
    const after = await listAll('?limit=1000')
    expect(after.slice(0, before.length).map((row) => row.id)).toEqual(before.map((row) => row.id))
    expect(after.slice(before.length).map((row) => row.kind)).toEqual(['sale', 'payment'])
  })

  it('refuses bad queries with 400: a limit out of 1..1000, a cursor it did not give, a malformed instant or order id', async () => {
    for (const query of [
      '?limit=0',
      '?limit=1001',
      '?limit=ten',
      '?cursor=!!!',
      `?cursor=${Buffer.from('abc').toString('base64url')}`,
      `?cursor=${Buffer.from('0').toString('base64url')}`,
      `?cursor=${Buffer.from('12').toString('base64')}`,
      `?cursor=${'A'.repeat(65)}`,
      '?from=yesterday',
      '?to=2024-01-01',
      '?from=2200-01-01T00:00:00Z',
      '?order_id=42',
    ]) {
      expectError(await list(query), 400, 'validation_error')
    }
    expect((await list('?limit=1000')).statusCode).toBe(200)
  })

  it('answers 404 for an unknown seller, 400 for a malformed id, 403 without adm.orders.read, 401 without a token', async () => {
    expectError(await list('', reader, randomUUID()), 404, 'not_found')
    expectError(await list('', reader, 'nope'), 400, 'validation_error')
    expectError(await list('', outsider), 403, 'forbidden')
    expectError(await list('', admClient(ctx.app, {})), 401, 'unauthorized')
    const theirs = (await list('', reader, b.seller.id)).json() as Page
    expect(theirs.data.map((row) => row.kind)).toEqual(['sale', 'payment'])
    expect(theirs.data.every((row) => row.seller_id === b.seller.id)).toBe(true)
  })
})

describe('the ledger is append-only', () => {
  it('refuses to update or delete a row, whatever runs the statement', async () => {
    const [row] = await ctx.app.db.select({ id: transactions.id }).from(transactions).limit(1)
    await expect(ctx.app.db.execute(sql`update transactions set amount = amount + 1 where id = ${row!.id}`)).rejects.toThrow()
    await expect(ctx.app.db.execute(sql`delete from transactions where id = ${row!.id}`)).rejects.toThrow()
    await expect(ctx.app.db.execute(sql`update transactions set amount = amount + 1 where id = ${row!.id}`)).rejects.toSatisfy((error: unknown) =>
      /append-only/.test(causeMessages(error)),
    )
    await expect(ctx.app.db.execute(sql`delete from transactions where id = ${row!.id}`)).rejects.toSatisfy((error: unknown) =>
      /append-only: DELETE/.test(causeMessages(error)),
    )
    expect((await ctx.app.db.select({ id: transactions.id }).from(transactions).where(eq(transactions.id, row!.id))).length).toBe(1)
  })

  it('and its invariants are checked for real: a sale of an order never paid is a violation', async () => {
    const pending = placed[2]!
    const [item] = await ctx.app.db.select().from(orderItems).where(eq(orderItems.orderId, pending.id))
    let found: string[] = []
    const rolledBack = await ctx.app.db
      .transaction(async (tx) => {
        await tx.insert(transactions).values({
          sellerId: a.seller.id,
          orderId: pending.id,
          kind: 'sale',
          amount: 100,
          tickets: 1,
          gross: 100,
          discount: 0,
          interest: 0,
          orderItemId: item!.id,
          inventoryId: item!.inventoryId,
        })
        found = await ledgerViolations(tx)
        tx.rollback()
      })
      .then(
        () => false,
        () => true,
      )
    expect(rolledBack).toBe(true)
    expect(found.some((problem) => problem.startsWith('sale or void rows of an order awaiting payment'))).toBe(true)
    expect(found.some((problem) => problem.startsWith("an item's sale and void tickets differ from its valid tickets"))).toBe(true)
    expect(await ledgerViolations(ctx.app.db)).toEqual([])
  })
})

/** Every message along an error's causes (drizzle wraps the driver's). */
function causeMessages(error: unknown): string {
  const messages: string[] = []
  for (let e = error as { message?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) messages.push(String(e.message))
  return messages.join(' | ')
}
