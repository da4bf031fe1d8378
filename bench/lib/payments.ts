import { setTimeout as sleep } from 'node:timers/promises'
import type { PaymentsSeed, PaymentsState } from '../server/seed-payments.js'
import { batch } from './batch.js'
import type { PlacedOrder } from './flash.js'

/** The storefront's caller of the payments row. */
export type PaymentsClient = { baseUrl: string; authorization: string }

/** The orders paid through the storefront, as many at once as `concurrency` lets, each exactly what it owes, each with a reference of its own. */
export const payOrders = (c: PaymentsClient, orders: readonly PlacedOrder[], concurrency: number, run: string) =>
  batch(
    `POST /stf/v1/orders/{id}/payments (${orders.length} orders awaiting payment)`,
    orders.length,
    concurrency,
    (n) => ({
      method: 'POST',
      url: `${c.baseUrl}/stf/v1/orders/${orders[n]!.id}/payments`,
      headers: { authorization: c.authorization },
      body: { amount: orders[n]!.total, reference: `bench-${run}-${n + 1}` },
    }),
    (status) => status === 201,
    (body) => body as { order_id: string; amount: number },
    'payments/s; each the amount owed',
  )

/** The payments row's inventories (bench/server/seed-payments.ts). */
export async function seedPayments(baseUrl: string, body: { seller_id: string; capacity: number; pending_capacity: number }): Promise<PaymentsSeed> {
  const res = await fetch(`${baseUrl}/bench/payments/seed`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  if (!res.ok) throw new Error(`payments seed: ${res.status} ${await res.text()}`)
  return (await res.json()) as PaymentsSeed
}

/** These orders made due now by the bench's own write; answers how many moved and when they fell due (the database's clock, epoch ms). */
export async function makeDue(baseUrl: string, orderIds: readonly string[]): Promise<{ moved: number; dueMs: number }> {
  const res = await fetch(`${baseUrl}/bench/payments/due`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ order_ids: orderIds }),
  })
  if (!res.ok) throw new Error(`payments due: ${res.status} ${await res.text()}`)
  return (await res.json()) as { moved: number; dueMs: number }
}

/** The inventory's state (bench/server/seed-payments.ts), expiries timed from `sinceMs`; `ids`: each status's orders listed. */
export async function paymentsStateOf(baseUrl: string, inventoryId: string, sinceMs = 0, ids = false): Promise<PaymentsState> {
  const res = await fetch(`${baseUrl}/bench/payments/${inventoryId}/state?since=${Math.floor(sinceMs)}${ids ? '&ids=1' : ''}`, {
    signal: AbortSignal.timeout(60_000),
  })
  if (!res.ok) throw new Error(`payments state: ${res.status} ${await res.text()}`)
  return (await res.json()) as PaymentsState
}

/**
 * Polls the inventory's `sold` every `everyMs` until it is `sold` or `maxMs` has passed (the
 * database's clock, from `sinceMs`). Answers the last reading, the polls, and when `sold` was
 * first seen, in ms after `sinceMs` by the database's clock (null: not within `maxMs`).
 */
export async function waitForSold(baseUrl: string, inventoryId: string, options: { sold: number; sinceMs: number; maxMs: number; everyMs: number }) {
  const read = async () => {
    const res = await fetch(`${baseUrl}/bench/inventories/${inventoryId}/sold`, { signal: AbortSignal.timeout(30_000) })
    if (!res.ok) throw new Error(`inventory sold: ${res.status} ${await res.text()}`)
    return (await res.json()) as { sold: number; nowMs: number }
  }
  let last = await read()
  let polls = 1
  while (last.sold !== options.sold && last.nowMs - options.sinceMs < options.maxMs) {
    await sleep(options.everyMs)
    last = await read()
    polls++
  }
  return { last, polls, seenMs: last.sold === options.sold ? last.nowMs - options.sinceMs : null }
}
