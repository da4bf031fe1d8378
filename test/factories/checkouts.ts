import type { FastifyInstance } from 'fastify'
import { expect } from 'vitest'
import { webhookEndpoints } from '../../src/domain/webhooks/webhooks.table.js'
import { insertSignedInCustomer } from './orders.js'
import type { TestSeller } from './sellers.js'

/** An order as the storefront answers it, with what refund tests read. */
export type TestOrder = {
  id: string
  status: string
  totals: { subtotal: number; discount: number; interest: number; total: number }
  paid_total: number
  refunded_total: number
  refunds: { id: string; amount: number; status: string; tickets: string[]; reason: string; reference: string | null }[]
  tickets: { identifier: string; inventory_id: string; status: string }[]
}

/**
 * A new signed-in customer's order through the storefront, as a partner places it: a basket of
 * `quantity` tickets of each inventory, checked out paid (or awaiting payment, `pending`).
 */
export async function checkOut(
  app: FastifyInstance,
  seller: TestSeller,
  lines: { inventoryId: string; quantity: number }[],
  options: { awaitPayment?: boolean; paymentMethod?: string } = {},
): Promise<{ order: TestOrder; customer: { id: string; headers: Record<string, string> } }> {
  const customer = await insertSignedInCustomer(app, seller)
  const basket = await app.inject({
    method: 'POST',
    url: '/stf/v1/baskets',
    headers: customer.headers,
    payload: { items: lines.map((line) => ({ inventory_id: line.inventoryId, quantity: line.quantity })) },
  })
  expect(basket.statusCode, basket.body).toBe(201)
  const order = await app.inject({
    method: 'POST',
    url: `/stf/v1/baskets/${basket.json().id}/checkout`,
    headers: customer.headers,
    payload: { payment_method: options.paymentMethod ?? 'pix', ...(options.awaitPayment ? { await_payment: true } : {}) },
  })
  expect(order.statusCode, order.body).toBe(201)
  return { order: order.json(), customer }
}

/** An endpoint of the seller that wants every event: from then on its events are written (webhook_events), to be read by tests. */
export async function subscribeToEverything(app: FastifyInstance, sellerId: string): Promise<void> {
  await app.db.insert(webhookEndpoints).values({ sellerId, url: 'https://hooks.example.com/boxoffice', secretSalt: 'test-salt' })
}
