import { Agent } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import type { WaitlistState } from '../server/seed-waitlist.js'
import { batch, codeOf, sendRetrying } from './batch.js'

/** The storefront's and back office's callers of the waitlist row. */
export type WaitlistClient = { baseUrl: string; authorization: string; staffToken: string; customers: readonly { token: string }[] }

/** The most tickets of one item a basket takes (the storefront's limit): the size of the orders that sell the inventory out. */
export const PER_ORDER = 20

/**
 * Sells the inventory's `tickets` out through the storefront as orders of `PER_ORDER` tickets (the
 * last one of what is left): a basket, then its checkout, by the bench customers by turns.
 * Answers each order's id (null: not sold) and its tickets.
 */
export async function sellOut(c: WaitlistClient, inventoryId: string, tickets: number, concurrency: number) {
  const sizes = Array.from({ length: Math.ceil(tickets / PER_ORDER) }, (_, n) => Math.min(PER_ORDER, tickets - n * PER_ORDER))
  const count = sizes.length
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
  const tally = { retries: 0 }
  const orders: ({ id: string; tickets: number } | null)[] = Array.from({ length: count }, () => null)
  const failures: Record<string, number> = {}
  let next = 0
  const lane = async () => {
    while (next < count) {
      const n = next++
      const headers = { authorization: c.authorization, 'x-customer-token': c.customers[n % c.customers.length]!.token }
      const items = JSON.stringify({ items: [{ inventory_id: inventoryId, quantity: sizes[n]! }] })
      const basket = await sendRetrying(agent, tally, 'POST', `${c.baseUrl}/stf/v1/baskets`, headers, items)
      if (basket.status !== 201) {
        const key = `basket ${basket.status} ${codeOf(basket)}`
        failures[key] = (failures[key] ?? 0) + 1
        continue
      }
      const basketId = (JSON.parse(basket.body) as { id: string }).id
      const order = await sendRetrying(
        agent,
        tally,
        'POST',
        `${c.baseUrl}/stf/v1/baskets/${basketId}/checkout`,
        headers,
        JSON.stringify({ payment_method: 'pix' }),
      )
      if (order.status !== 201) {
        const key = `checkout ${order.status} ${codeOf(order)}`
        failures[key] = (failures[key] ?? 0) + 1
        continue
      }
      orders[n] = { id: (JSON.parse(order.body) as { id: string }).id, tickets: sizes[n]! }
    }
  }
  const started = performance.now()
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane))
  } finally {
    agent.destroy()
  }
  return { orders, failures, ms: performance.now() - started, retries: tally.retries }
}

/** A distinct end-user address for entry n (10.x.y.z), so that the per-address limit on joining counts each buyer on its own. */
const addressOf = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`

/** `count` buyers join the list for one ticket each, through the storefront, each from an address of its own. */
export const joinList = (c: WaitlistClient, inventoryId: string, count: number, concurrency: number, run: string) =>
  batch(
    `POST /stf/v1/waiting-list (${count} joins, quantity 1)`,
    count,
    concurrency,
    (n) => ({
      method: 'POST',
      url: `${c.baseUrl}/stf/v1/waiting-list`,
      headers: { authorization: c.authorization, 'x-end-user-ip': addressOf(n + 1) },
      body: { inventory_id: inventoryId, quantity: 1, email: `waiting-${run}-${n + 1}@bench.example.com`, name: `Waiting ${n + 1}` },
    }),
    (status) => status === 201,
    (body) => body as { id: string; status: string; position: number | null },
    'each from its own X-End-User-IP',
  )

/** The orders cancelled through the back office, as many at once as `concurrency` lets: a mass cancellation. */
export const cancelOrders = (c: WaitlistClient, orderIds: readonly string[], concurrency: number, tickets: number) =>
  batch(
    `POST /adm/v1/orders/{id}/cancel (${orderIds.length} orders, ${tickets} tickets)`,
    orderIds.length,
    concurrency,
    (n) => ({ method: 'POST', url: `${c.baseUrl}/adm/v1/orders/${orderIds[n]}/cancel`, headers: { authorization: `Bearer ${c.staffToken}` } }),
    (status) => status === 200,
    (body) => (body as { status: string }).status,
    'the mass cancellation',
  )

/** The inventory's state (bench/server/seed-waitlist.ts), offers timed from `sinceMs`. */
export async function stateOf(baseUrl: string, inventoryId: string, sinceMs = 0): Promise<WaitlistState> {
  const res = await fetch(`${baseUrl}/bench/waitlist/${inventoryId}/state?since=${Math.floor(sinceMs)}`, { signal: AbortSignal.timeout(30_000) })
  if (!res.ok) throw new Error(`waitlist state: ${res.status} ${await res.text()}`)
  return (await res.json()) as WaitlistState
}

/**
 * Polls the state every `everyMs` until `done` holds or `maxMs` has passed since `startedAt`
 * (performance.now()); answers the last state and when `done` was first seen, from `startedAt`
 * (null: never within the time).
 */
export async function waitFor(
  baseUrl: string,
  inventoryId: string,
  options: { startedAt: number; sinceMs: number; maxMs: number; everyMs: number; done: (s: WaitlistState) => boolean },
) {
  let state = await stateOf(baseUrl, inventoryId, options.sinceMs)
  let polls = 1
  while (!options.done(state) && performance.now() - options.startedAt < options.maxMs) {
    await sleep(options.everyMs)
    state = await stateOf(baseUrl, inventoryId, options.sinceMs)
    polls++
  }
  return { state, polls, seenMs: options.done(state) ? performance.now() - options.startedAt : null }
}
