import { randomBytes } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { createTestSeller } from '../factories/sellers.js'
import { commerceViolations, queryDatabase } from '../support/commerce-invariants.js'
import {
  callServer,
  connectionsGone,
  countStatuses,
  freshDatabase,
  openFixtures,
  retrying,
  startServer,
  type Answer,
  type Fixtures,
} from '../support/live-server.js'
import type { ServerProcess } from '../support/server-process.js'

/**
 * Kill -9 of the server while groups are in flight (issue 41). New baskets and checkouts of one
 * inventory are decided in groups, each group one transaction (hold-queue.ts `inGroup`,
 * create-basket.ts `holdTogether`, place-order.ts `sellTogether`, take_tickets_group.sql). A
 * process killed midway must leave every group committed whole or not at all: no sale answered
 * 201 lost, no sale without its order, no hold outliving its basket, and a fresh process over the
 * same database sells exactly what is left.
 *
 * What the checks below would catch, had a group gone wrong:
 * - a group that committed a sale without its order (take_tickets' `sold` moved, the order rows
 *   not written, or written by another transaction that the kill cut): `inventories.sold` would
 *   exceed the tickets of confirmed orders ("sold = tickets in confirmed orders", and
 *   commerceViolations' own "sold differs from its tickets holding stock"); and the fresh
 *   server, selling until refused, would stop short: sold + held < capacity at the end.
 * - a group answered before its COMMIT (or whose COMMIT the kill could undo): an order or basket
 *   answered 201 missing from the database.
 * - a refused hold of a group leaving its basket and items (its buyer answered 409): more baskets
 *   stored than were answered 201 or cut by the kill; and one gone or checked out whose items
 *   still count as held: a basket_items row holding (held_until > now()) without an open basket.
 *   Either way the fresh server, selling until refused, would sell less than what is left.
 * - a group of checkouts not all or nothing (an order without its sale, or a basket checked out
 *   without its order): the order's tickets, or commerceViolations' "checked out without an order".
 * - a sale beyond capacity, by a group deciding on a stale count: sold + held > capacity.
 */
let servers: ServerProcess[] = []
let fixtures: Fixtures | undefined
afterEach(async () => {
  await fixtures?.close()
  for (const server of servers) await server.stop('SIGKILL')
  servers = []
  fixtures = undefined
})

const CAPACITY = 100
const BUYERS = 200
const CONNECTIONS = 50

type BasketAnswer = { id: string; items: { inventory_id: string; quantity: number }[] }
type OrderAnswer = { id: string; status: string; created_at: string; items: { quantity: number }[]; tickets: { identifier: string; status: string }[] }

describe('kill -9 of the server while groups of holds and checkouts are in flight', () => {
  it('loses no confirmed sale, leaves no hold without its open basket, and a fresh server sells exactly the rest', async () => {
    const databaseUrl = await freshDatabase()
    servers.push(await startServer(databaseUrl))
    const first = servers[0]!

    fixtures = await openFixtures(databaseUrl)
    const seller = await createTestSeller(fixtures.app)
    const event = await createTestEvent(fixtures.app, seller.seller.id)
    const inventory = await createTestInventory(fixtures.app, event, { capacity: CAPACITY })
    const warmEvent = await createTestEvent(fixtures.app, seller.seller.id)
    const warmInventory = await createTestInventory(fixtures.app, warmEvent, { capacity: 10_000 })
    // Four at a time (the fixtures' pool): all at once, the last would wait past its connect timeout on a busy machine.
    const buyers: Record<string, string>[] = []
    while (buyers.length < BUYERS)
      buyers.push(...(await Promise.all(Array.from({ length: 4 }, async () => (await insertSignedInCustomer(fixtures!.app, seller)).headers))))
    await fixtures.close()
    fixtures = undefined

    const basketOf = (baseUrl: string, headers: Record<string, string>, quantity: number, inventoryId = inventory.id) =>
      retrying(() => callServer(baseUrl, 'POST', '/stf/v1/baskets', { headers, body: { items: [{ inventory_id: inventoryId, quantity }] } }))
    const checkoutOf = (baseUrl: string, headers: Record<string, string>, basketId: string) =>
      retrying(() =>
        callServer(baseUrl, 'POST', `/stf/v1/baskets/${basketId}/checkout`, {
          headers,
          body: { payment_method: 'credit_card', installments: 1, payment_reference: randomBytes(6).toString('hex') },
        }),
      )

    // The process warmed up first (on an inventory of another event), so that the load meets it
    // as a running shop would, and groups form from the load's first requests.
    const warm = await Promise.all(
      buyers.slice(0, 20).map(async (headers) => {
        const statuses: number[] = []
        for (let round = 0; round < 3; round++) {
          const basket = await basketOf(first.baseUrl, headers, 1, warmInventory.id)
          statuses.push(basket.status)
          if (basket.status === 201) statuses.push((await checkoutOf(first.baseUrl, headers, basket.body.id)).status)
        }
        return statuses
      }),
    )
    expect(warm.flat().every((status) => status === 201)).toBe(true)

    // What the clients were answered 201: baskets (with their buyer), and orders (by basket).
    const baskets = new Map<string, { headers: Record<string, string>; body: BasketAnswer }>()
    const orders = new Map<string, OrderAnswer>()
    const orderOfBasket = new Map<string, string>()
    const answers: (Answer & { what: 'basket' | 'checkout' })[] = []

    // The kill: as soon as a group of checkouts has been answered (three orders of one transaction
    // share its created_at), while the next groups of holds and checkouts form or are in the
    // database. An event, not a clock. Not at the first order: the load's first checkouts find
    // the inventory's turns free and are decided alone.
    let killed = false
    const seen = new Map<string, number>()
    const killOnGroup = (order: OrderAnswer) => {
      const together = (seen.get(order.created_at) ?? 0) + 1
      seen.set(order.created_at, together)
      if (!killed && together >= 3) {
        first.child.kill('SIGKILL')
        killed = true
      }
    }

    // 200 buyers over 50 storefront connections: each opens a basket of 1 or 2 tickets, then checks it out.
    let next = 0
    const buyer = async (n: number) => {
      const headers = buyers[n]!
      const basket = await basketOf(first.baseUrl, headers, 1 + (n % 2))
      answers.push({ ...basket, what: 'basket' })
      if (basket.status !== 201) return
      baskets.set(basket.body.id, { headers, body: basket.body })
      if (killed) return
      const order = await checkoutOf(first.baseUrl, headers, basket.body.id)
      answers.push({ ...order, what: 'checkout' })
      if (order.status !== 201) return
      orders.set(order.body.id, order.body)
      orderOfBasket.set(basket.body.id, order.body.id)
      killOnGroup(order.body)
    }
    const connection = async () => {
      while (!killed && next < BUYERS) await buyer(next++)
    }
    await Promise.all(Array.from({ length: CONNECTIONS }, connection))
    expect(killed, `killed while sales were in flight (answers: ${JSON.stringify(countStatuses(answers))})`).toBe(true)
    await first.exited

    // Before the killed process's connections are gone, a statement it sent (with its COMMIT)
    // may still be running: the database is read once they are.
    await connectionsGone(databaseUrl)

    // Answered before the kill: only successes and sold-out refusals; cut by it: status 0.
    const statuses = countStatuses(answers)
    for (const status of Object.keys(statuses)) expect(['0', '201', '409'], JSON.stringify(statuses)).toContain(status)
    for (const refused of answers.filter((a) => a.status === 409)) expect(refused.body.code).toBe('insufficient_inventory')
    const cutBaskets = answers.filter((a) => a.status === 0 && a.what === 'basket').length
    const cutCheckouts = answers.filter((a) => a.status === 0 && a.what === 'checkout').length
    expect(cutCheckouts, `checkouts cut by the kill (${JSON.stringify(statuses)})`).toBeGreaterThan(0)

    // Every order answered 201 is stored, confirmed, with the tickets it was answered with, all valid.
    const answeredOrders = [...orders.values()]
    const storedOrders = await queryDatabase<{ id: string; status: string; basket_status: string; tickets: string[]; valid: number; units: number }>(
      databaseUrl,
      `select o.id, o.status, b.status as basket_status,
              array(select identifier from tickets t where t.order_id = o.id order by identifier) as tickets,
              (select count(*)::int from tickets t where t.order_id = o.id and t.voided_at is null) as valid,
              (select coalesce(sum(quantity), 0)::int from order_items oi where oi.order_id = o.id) as units
         from orders o join baskets b on b.id = o.basket_id where o.id = any($1)`,
      [answeredOrders.map((o) => o.id)],
    )
    expect(storedOrders).toHaveLength(answeredOrders.length)
    for (const row of storedOrders) {
      const answered = orders.get(row.id)!
      expect(row).toEqual({
        id: answered.id,
        status: 'confirmed',
        basket_status: 'checked_out',
        tickets: answered.tickets.map((t) => t.identifier).sort(),
        valid: answered.tickets.length,
        units: answered.items.reduce((sum, item) => sum + item.quantity, 0),
      })
    }

    // Every basket answered 201 is stored with its items: checked out into its order (its items
    // holding nothing), or open and holding each item until the basket expires.
    const storedBaskets = await queryDatabase<{
      id: string
      status: string
      order_id: string | null
      items: { quantity: number; held_as_its_basket: boolean }[]
    }>(
      databaseUrl,
      `select b.id, b.status, (select o.id from orders o where o.basket_id = b.id) as order_id,
              coalesce((select json_agg(json_build_object(
                                 'quantity', bi.quantity,
                                 'held_as_its_basket', case when b.status = 'open' then bi.held_until is not distinct from b.expires_at
                                                            else bi.held_until is null end) order by bi.position)
                          from basket_items bi where bi.basket_id = b.id), '[]') as items
         from baskets b where b.id = any($1)`,
      [[...baskets.keys()]],
    )
    expect(storedBaskets).toHaveLength(baskets.size)
    for (const row of storedBaskets) {
      const answered = baskets.get(row.id)!.body
      expect(row.items).toEqual(answered.items.map((item) => ({ quantity: item.quantity, held_as_its_basket: true })))
      if (orderOfBasket.has(row.id)) expect(row).toMatchObject({ status: 'checked_out', order_id: orderOfBasket.get(row.id) })
      else expect(['open', 'checked_out']).toContain(row.status)
      expect(row.status === 'checked_out').toBe(row.order_id !== null)
    }

    // No item holds for a basket that is gone, checked out or expired.
    const strays = await queryDatabase(
      databaseUrl,
      `select bi.id, bi.basket_id, b.status, b.expires_at, bi.held_until from basket_items bi left join baskets b on b.id = bi.basket_id
        where bi.held_until > now() and (b.id is null or b.status <> 'open' or b.expires_at <= now() or bi.held_until <> b.expires_at)`,
    )
    expect(strays).toEqual([])

    // sold = the tickets of confirmed orders; sold + held (items holding now) ≤ capacity.
    const tally = async () =>
      (
        await queryDatabase<{ capacity: number; sold: number; in_orders: number; held: number; orders: number; baskets: number }>(
          databaseUrl,
          `select i.capacity, i.sold,
                  (select count(*)::int from tickets t join orders o on o.id = t.order_id
                    where t.inventory_id = i.id and o.status = 'confirmed' and t.voided_at is null) as in_orders,
                  (select coalesce(sum(bi.quantity), 0)::int from basket_items bi where bi.inventory_id = i.id and bi.held_until > now()) as held,
                  (select count(distinct order_id)::int from order_items where inventory_id = i.id) as orders,
                  (select count(distinct basket_id)::int from basket_items where inventory_id = i.id) as baskets
             from inventories i where i.id = $1`,
          [inventory.id],
        )
      )[0]!
    const afterKill = await tally()
    const answeredBaskets = baskets.size
    expect(afterKill.sold).toBe(afterKill.in_orders)
    expect(afterKill.sold + afterKill.held).toBeLessThanOrEqual(CAPACITY)
    // Stored but not answered: only what the kill cut, a basket refused (409) left nothing, and
    // every order stored is of a basket some buyer was answered 201 for.
    expect(afterKill.baskets - answeredBaskets).toBeLessThanOrEqual(cutBaskets)
    expect(afterKill.orders - answeredOrders.length).toBeLessThanOrEqual(cutCheckouts)
    const orderedBaskets = await queryDatabase<{ basket_id: string }>(
      databaseUrl,
      'select distinct o.basket_id from orders o join order_items oi on oi.order_id = o.id where oi.inventory_id = $1',
      [inventory.id],
    )
    expect(orderedBaskets.filter((row) => !baskets.has(row.basket_id))).toEqual([])
    expect(await commerceViolations(databaseUrl)).toEqual([])

    // The groups: rows of one transaction share its created_at (now()). Several formed before the kill.
    const groups = async (table: 'baskets' | 'orders') =>
      (
        await queryDatabase<{ size: number; n: number }>(
          databaseUrl,
          `select size, count(*)::int as n from (select count(*)::int as size from ${table} x
                                                  where exists (select 1 from ${table === 'baskets' ? 'basket_items' : 'order_items'} i
                                                                 where i.${table === 'baskets' ? 'basket_id' : 'order_id'} = x.id and i.inventory_id = $1)
                                                  group by created_at) g group by size order by size`,
          [inventory.id],
        )
      ).map(({ size, n }) => `${n}×${size}`)
    const basketGroups = await groups('baskets')
    const orderGroups = await groups('orders')
    expect(
      basketGroups.some((g) => !g.endsWith('×1')),
      `groups of baskets: ${basketGroups}`,
    ).toBe(true)
    expect(
      orderGroups.some((g) => !g.endsWith('×1')),
      `groups of orders: ${orderGroups}`,
    ).toBe(true)

    // A fresh server over the same database. The buyers whose checkout went unanswered check out
    // again: each is sold now, or was sold before the kill (409 basket_checked_out, its order the
    // one stored).
    servers.push(await startServer(databaseUrl))
    const fresh = servers[1]!
    const unanswered = [...baskets].filter(([id]) => !orderOfBasket.has(id))
    const again = await Promise.all(unanswered.map(([id, { headers }]) => checkoutOf(fresh.baseUrl, headers, id)))
    const sales: OrderAnswer[] = []
    for (const [n, answer] of again.entries()) {
      const [basketId] = unanswered[n]!
      const stored = storedBaskets.find((row) => row.id === basketId)!
      if (stored.status === 'checked_out') {
        expect(answer.status).toBe(409)
        expect(answer.body).toMatchObject({ code: 'basket_checked_out', details: { order_id: stored.order_id } })
        continue
      }
      expect(answer.status, JSON.stringify(answer.body)).toBe(201)
      sales.push(answer.body)
    }
    const soldAgain = sales.length

    // Then new buyers, 20 at a time, one ticket each, until refused for want of tickets: at most
    // what is left plus one refusal per connection.
    const beforeNew = await tally()
    const left = CAPACITY - beforeNew.sold - beforeNew.held
    const later: Answer[] = []
    let budget = left + 20
    const laterBuyer = async (headers: Record<string, string>) => {
      while (budget-- > 0) {
        const basket = await basketOf(fresh.baseUrl, headers, 1)
        later.push(basket)
        if (basket.status !== 201) return
        baskets.set(basket.body.id, { headers, body: basket.body })
        const order = await checkoutOf(fresh.baseUrl, headers, basket.body.id)
        later.push(order)
        if (order.status !== 201) return
        sales.push(order.body)
      }
    }
    await Promise.all(buyers.slice(0, 20).map(laterBuyer))
    expect(countStatuses(later)).toEqual({ 201: 2 * left, 409: 20 })
    for (const refused of later.filter((a) => a.status === 409)) expect(refused.body.code).toBe('insufficient_inventory')

    // Everything that was not held was sold, once, to the orders the fresh server answered; every
    // order answered 201 is stored; what still holds is only baskets whose answer the kill cut.
    const end = await tally()
    expect(end.sold).toBe(end.in_orders)
    expect(end.sold + end.held).toBe(CAPACITY)
    expect(end.sold - afterKill.sold).toBe(sales.reduce((sum, order) => sum + order.tickets.length, 0))
    expect(end.orders).toBe(afterKill.orders + sales.length)
    expect(end.baskets).toBe(afterKill.baskets + left)
    for (const order of sales) orders.set(order.id, order)
    const stored = await queryDatabase<{ id: string; status: string }>(databaseUrl, 'select id, status from orders where id = any($1)', [[...orders.keys()]])
    expect(stored).toHaveLength(orders.size)
    expect(stored.every((row) => row.status === 'confirmed')).toBe(true)
    const stillOpen = await queryDatabase<{ id: string }>(databaseUrl, `select id from baskets where status = 'open' and id = any($1)`, [[...baskets.keys()]])
    expect(stillOpen).toEqual([])
    expect(await commerceViolations(databaseUrl)).toEqual([])
    const availability = await callServer(fresh.baseUrl, 'GET', `/stf/v1/events/${event.id}/availability`, { headers: seller.auth })
    expect(availability.body.data[0].inventories[0].available).toBe(0)

    console.info(
      `kill -9 with groups in flight: ${answers.length} requests before the kill (${JSON.stringify(statuses)}), ` +
        `${answeredOrders.length} orders and ${answeredBaskets} baskets answered 201, all stored; committed unanswered: ` +
        `${afterKill.orders - answeredOrders.length} orders, ${afterKill.baskets - answeredBaskets} baskets; groups (count×size) of baskets ${basketGroups}, ` +
        `of orders ${orderGroups}; after the kill sold ${afterKill.sold}, held ${afterKill.held}; the fresh server sold ${end.sold - afterKill.sold} more ` +
        `(${soldAgain} unanswered checkouts again, ${left} to new buyers), ${end.held} still held by unanswered baskets`,
    )
  }, 120_000)
})
