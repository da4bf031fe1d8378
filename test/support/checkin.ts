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

/** A checkout through the storefront, as a partner does it. */
export async function buyTickets(
  app: FastifyInstance,
  seller: TestSeller,
  items: { inventory_id: string; quantity: number; variant?: string }[],
): Promise<TestOrder> {
  const customer = await insertSignedInCustomer(app, seller)
  const basket = await app.inject({ method: 'POST', url: '/stf/v1/baskets', headers: customer.headers, payload: { items } })
  expect(basket.statusCode).toBe(201)
  const order = await app.inject({
    method: 'POST',
    url: `/stf/v1/baskets/${basket.json().id}/checkout`,
    headers: customer.headers,
    payload: { payment_method: 'pix' },
  })
  expect(order.statusCode).toBe(201)
  return order.json()
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
