import type { FastifyInstance } from 'fastify'
import { expect } from 'vitest'
import { type TestSeller, useTwoSellers } from '../factories/sellers.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { admClient, type AdmClient } from './adm-client.js'
import { asAdmin } from './staff.js'

export type TestOrder = { id: string; tickets: { identifier: string; code: string; status: string; inventory_id: string; variant: string | null }[] }

/** A back office client of an admin (every check-in permission). */
export const checkinAdmin = async (app: FastifyInstance): Promise<AdmClient> => admClient(app, (await asAdmin(app)).auth)

/** A device of the seller created in the back office and paired: its id, token and headers. */
export async function pairedDevice(app: FastifyInstance, adm: AdmClient, sellerId: string, body: { name?: string; event_ids?: string[] } = {}) {
  const created = await adm.post(`/sellers/${sellerId}/devices`, { name: 'Gate 1', ...body })
  expect(created.statusCode).toBe(201)
  const paired = await app.inject({ method: 'POST', url: '/chk/v1/pair', payload: { pairing_code: created.json().pairing_code } })
  expect(paired.statusCode).toBe(201)
  const token: string = paired.json().token
  return { id: created.json().id as string, token, headers: { authorization: `Device ${token}` } }
}

/** A checkout through the storefront, as a partner does it: paid (`confirmed`), every ticket with its signed code. */
export const buyTickets = async (app: FastifyInstance, seller: TestSeller, items: CheckoutItems): Promise<TestOrder> =>
  (await checkout<TestOrder>(app, seller, items, {})).order

/** `buyTickets`, and the headers of its buyer's storefront calls (the order's customer): to read the order again, change or give its tickets. */
export const buyTicketsAs = (app: FastifyInstance, seller: TestSeller, items: CheckoutItems): Promise<{ order: TestOrder; buyer: Record<string, string> }> =>
  checkout<TestOrder>(app, seller, items, {})

/** An order awaiting payment (docs/payments.md), through the storefront's checkout with `await_payment`: `pending`, its tickets without codes. */
export async function orderAwaitingPayment(app: FastifyInstance, seller: TestSeller, items: CheckoutItems): Promise<UnpaidOrder> {
  const { order } = await checkout<UnpaidOrder>(app, seller, items, { await_payment: true })
  expect(order).toMatchObject({ status: 'pending' })
  expect(order.tickets.map((ticket) => [ticket.status, ticket.code])).toEqual(order.tickets.map(() => ['pending', null]))
  return order
}

/** An order of tickets without codes: awaiting payment, or expired unpaid. */
export type UnpaidOrder = { id: string; status: string; tickets: (Omit<TestOrder['tickets'][number], 'code'> & { code: null })[] }

type CheckoutItems = { inventory_id: string; quantity: number; variant?: string }[]

async function checkout<O>(
  app: FastifyInstance,
  seller: TestSeller,
  items: CheckoutItems,
  body: { await_payment?: boolean },
): Promise<{ order: O; buyer: Record<string, string> }> {
  const customer = await insertSignedInCustomer(app, seller)
  const basket = await app.inject({ method: 'POST', url: '/stf/v1/baskets', headers: customer.headers, payload: { items } })
  expect(basket.statusCode).toBe(201)
  const order = await app.inject({
    method: 'POST',
    url: `/stf/v1/baskets/${basket.json().id}/checkout`,
    headers: customer.headers,
    payload: { payment_method: 'pix', ...body },
  })
  expect(order.statusCode).toBe(201)
  return { order: order.json(), buyer: customer.headers }
}

/** A scanner's calls: `scan.post('/redeem', {...})`. */
export function scanner(app: FastifyInstance, headers: Record<string, string>) {
  return {
    headers,
    get: (url: string) => app.inject({ method: 'GET', url: `/chk/v1${url}`, headers }),
    post: (url: string, payload: object) => app.inject({ method: 'POST', url: `/chk/v1${url}`, headers, payload }),
  }
}

/**
 * Sellers a and b of a check-in test, in UTC: a ticket dated `dayFromToday(0)` (a UTC date) may
 * then enter whatever the hour. Declare it right after `useTestApp()`.
 */
export const useSellersInUtc = (ctx: { app: FastifyInstance }) =>
  useTwoSellers(ctx, { a: { settings: { timezone: 'UTC' } }, b: { settings: { timezone: 'UTC' } } })

/** Pairing is limited per address; a file that pairs many devices from one raises it (the limit has its own test). */
export const MANY_PAIRINGS = { CHK_PAIR_LIMIT_PER_IP: '100000' }

/** A ticket as the door's feed and search answer it (the fields tests read). */
export type FeedTicket = { identifier: string; status: string; date: string; checked_in: boolean; inside: boolean }

export type FeedPage = { data: FeedTicket[]; next_cursor: string; has_more: boolean; reset: boolean }

/**
 * A page of a list's ticket feed after `cursor` (from the start without), read again until it
 * shows every one of `expected`: on PostgreSQL the feed shows a change once every older write
 * transaction has ended (other work may hold one for a moment), so wait for it, a bounded number
 * of times (200). Without `expected`, one read.
 */
export async function feedPage(gate: ReturnType<typeof scanner>, listId: string, cursor?: string, expected: readonly string[] = []): Promise<FeedPage> {
  for (let attempt = 0; ; attempt++) {
    const res = await gate.get(`/lists/${listId}/tickets?limit=1000${cursor ? `&cursor=${cursor}` : ''}`)
    expect(res.statusCode).toBe(200)
    const page = res.json() as FeedPage
    const shown = new Set(page.data.map((t) => t.identifier))
    if (expected.every((id) => shown.has(id)) || attempt >= 200) return page
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
