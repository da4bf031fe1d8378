import { eq, sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { baskets } from '../../src/domain/baskets/baskets.table.js'
import { events } from '../../src/domain/catalog/events.table.js'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { heldQuantities } from '../../src/domain/inventory/held.js'
import { orders } from '../../src/domain/orders/orders.table.js'
import { sellers } from '../../src/domain/sellers/sellers.table.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory, dayFromToday } from '../factories/catalog.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { createSeatedInventory, PARTY_VARIANTS } from '../factories/seating.js'
import { createTestSeller, type TestSeller } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { answerOf, grouped as groupedOn, oneByOne, type Request } from '../support/hold-groups.js'
import { createStaff } from '../support/staff.js'

// Holds and checkouts of the same inventories are decided in groups (one transaction, one
// statement: take_tickets_group.sql). Each case below runs one sequence of requests twice, on two
// identical copies of its inventories: grouped (every request waits behind a turn the test holds,
// in a known order, and all are decided together when it lets go) and one by one (each answered
// before the next is sent: groups of one, the ordinary path). The answers, in order, and the final
// counts must be the same. One turn per inventory, so that the test's turn holds them all.
const ctx = useTestApp({ env: { HOLDS_PER_INVENTORY: '1' } })
let seller: TestSeller
let adm: AdmClient

beforeAll(async () => {
  seller = await createTestSeller(ctx.app)
  adm = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.catalog.read', 'adm.catalog.write'] })).auth)
})

type Item = { inventory_id: string; quantity?: number; seats?: string[]; variant?: string }

const create = (items: Item[]) => ctx.app.inject({ method: 'POST', url: '/stf/v1/baskets', headers: seller.auth, payload: { items } })
const checkout = (basketId: string, headers: Record<string, string>, extra: Record<string, unknown> = {}) =>
  ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${basketId}/checkout`, headers, payload: { payment_method: 'pix', ...extra } })

/** The requests decided in one group (test/support/hold-groups.ts). */
const grouped = (inventoryIds: string[], requests: Request[], meanwhile?: () => Promise<unknown>) => groupedOn(ctx.app, inventoryIds, requests, meanwhile)

async function countsOf(inventoryId: string) {
  const [row] = await ctx.app.db.select({ sold: inventories.sold }).from(inventories).where(eq(inventories.id, inventoryId))
  return { sold: row!.sold, held: (await heldQuantities(ctx.app.db, [inventoryId])).get(inventoryId) ?? 0 }
}

/** A published event with one inventory of `capacity` tickets; the copies of a case are identical. */
async function anInventory(capacity: number, overrides: Parameters<typeof createTestInventory>[2] = {}) {
  const event = await createTestEvent(ctx.app, seller.seller.id)
  return { event, inventory: await createTestInventory(ctx.app, event, { capacity, ...overrides }) }
}

describe('holds decided in a group answer as one by one', () => {
  it('a group with an oversized basket in the middle: it alone is refused, the others hold', async () => {
    const sequence = (id: string) => [2, 2, 4, 1].map((quantity) => () => create([{ inventory_id: id, quantity }]))
    const one = await anInventory(5)
    const two = await anInventory(5)
    const together = await grouped([one.inventory.id], sequence(one.inventory.id))
    const alone = await oneByOne(sequence(two.inventory.id))

    expect(together.map((res) => res.statusCode)).toEqual([201, 201, 409, 201])
    expect(together.map((res) => answerOf(res, { [one.inventory.id]: 'I' }))).toEqual(alone.map((res) => answerOf(res, { [two.inventory.id]: 'I' })))
    expect(JSON.parse(together[2]!.body)).toMatchObject({ code: 'insufficient_inventory', details: [{ message: `1 left of inventory ${one.inventory.id}` }] })
    expect(await countsOf(one.inventory.id)).toEqual({ sold: 0, held: 5 })
    expect(await countsOf(one.inventory.id)).toEqual(await countsOf(two.inventory.id))
    // The refused basket left nothing: three baskets of this inventory, and three audit entries.
    const kept = await ctx.app.db.execute(
      sql`select count(distinct b.id)::int as baskets from baskets b join basket_items i on i.basket_id = b.id where i.inventory_id = ${one.inventory.id}`,
    )
    expect(kept.rows[0]).toEqual({ baskets: 3 })
    const ids = together.filter((res) => res.statusCode === 201).map((res) => JSON.parse(res.body).id as string)
    const audited = await ctx.app.db.execute(
      sql`select count(*)::int as n from audit_log where action = 'stf.basket.created' and target_id = any(${sql.param(ids)}::uuid[])`,
    )
    expect(audited.rows[0]).toEqual({ n: 3 })
    const orphans = await ctx.app.db.execute(
      sql`select count(*)::int as n from baskets b where not exists (select 1 from basket_items i where i.basket_id = b.id)`,
    )
    expect(orphans.rows[0]).toEqual({ n: 0 })
  })

  it('a group whose event is unpublished while it waits: every basket is refused as alone', async () => {
    const sequence = (id: string) => [1, 2, 1].map((quantity) => () => create([{ inventory_id: id, quantity }]))
    const one = await anInventory(10)
    const two = await anInventory(10)
    const unpublish = (eventId: string) => () => ctx.app.db.update(events).set({ status: 'draft' }).where(eq(events.id, eventId))
    const together = await grouped([one.inventory.id], sequence(one.inventory.id), unpublish(one.event.id))
    const alone = await oneByOne(sequence(two.inventory.id), unpublish(two.event.id))

    expect(together.map((res) => res.statusCode)).toEqual([404, 404, 404])
    expect(together.map((res) => answerOf(res, { [one.inventory.id]: 'I' }))).toEqual(alone.map((res) => answerOf(res, { [two.inventory.id]: 'I' })))
    expect(await countsOf(one.inventory.id)).toEqual({ sold: 0, held: 0 })
  })

  it('a group on a date that passes while it waits: every basket is refused as alone', async () => {
    const sequence = (id: string) => [1, 1].map((quantity) => () => create([{ inventory_id: id, quantity }]))
    const one = await anInventory(10)
    const two = await anInventory(10)
    const pass = (id: string) => () =>
      ctx.app.db
        .update(inventories)
        .set({ date: dayFromToday(-2) })
        .where(eq(inventories.id, id))
    const together = await grouped([one.inventory.id], sequence(one.inventory.id), pass(one.inventory.id))
    const alone = await oneByOne(sequence(two.inventory.id), pass(two.inventory.id))

    expect(together.map((res) => JSON.parse(res.body).code)).toEqual(['inventory_unavailable', 'inventory_unavailable'])
    expect(together.map((res) => answerOf(res, { [one.inventory.id]: 'I' }))).toEqual(alone.map((res) => answerOf(res, { [two.inventory.id]: 'I' })))
    expect(await countsOf(one.inventory.id)).toEqual({ sold: 0, held: 0 })
  })

  it('a group mixing variants and seats: named seats, best available, a seat taken by the basket before, and a sold-out one', async () => {
    const copy = async () => {
      const { event, inventory } = await createSeatedInventory(ctx.app, adm, seller.seller.id, [{ category: 'Plateia', seats: 6 }])
      const variants = [{ name: 'Meia', description: 'Half price', type: 'half', price: 2500 }]
      const standing = await createTestInventory(ctx.app, event, { capacity: 10, name: 'Pista', variants })
      return { seats: inventory.id, standing: standing.id }
    }
    const sequence = ({ seats, standing }: { seats: string; standing: string }) =>
      [
        [
          { inventory_id: standing, variant: 'Meia', quantity: 1 },
          { inventory_id: seats, seats: ['A3', 'A4'] },
        ],
        [
          { inventory_id: standing, quantity: 1 },
          { inventory_id: seats, quantity: 2 },
        ],
        [
          { inventory_id: standing, variant: 'Meia', quantity: 1 },
          { inventory_id: seats, seats: ['A4', 'A5'] },
        ],
        [
          { inventory_id: standing, variant: 'Meia', quantity: 2 },
          { inventory_id: seats, quantity: 2 },
        ],
        [
          { inventory_id: standing, quantity: 1 },
          { inventory_id: seats, quantity: 1 },
        ],
      ].map((items) => () => create(items))
    const one = await copy()
    const two = await copy()
    const together = await grouped([one.seats, one.standing], sequence(one))
    const alone = await oneByOne(sequence(two))

    const names = (c: { seats: string; standing: string }) => ({ [c.seats]: 'S', [c.standing]: 'P' })
    expect(together.map((res) => res.statusCode)).toEqual([201, 201, 409, 201, 409])
    expect(together.map((res) => answerOf(res, names(one)))).toEqual(alone.map((res) => answerOf(res, names(two))))
    expect(JSON.parse(together[2]!.body)).toMatchObject({ code: 'seat_unavailable', details: { seats: ['A4'] } })
    expect(await countsOf(one.seats)).toEqual({ sold: 0, held: 6 })
    expect(await countsOf(one.standing)).toEqual({ sold: 0, held: 4 })
    expect([await countsOf(one.seats), await countsOf(one.standing)]).toEqual([await countsOf(two.seats), await countsOf(two.standing)])
  })
})

describe('parties and orphans decided in a group answer as one by one', () => {
  it('parties sit as one block and named seats are judged together whatever their order', async () => {
    const copy = async () => {
      const { inventory } = await createSeatedInventory(ctx.app, adm, seller.seller.id, [{ category: 'Plateia', seats: 12 }], 'Plateia', {
        variants: PARTY_VARIANTS,
      })
      return inventory.id
    }
    const party = (id: string, full: number, half: number) => [
      { inventory_id: id, variant: 'Inteira', quantity: full },
      { inventory_id: id, variant: 'Meia-entrada', quantity: half },
    ]
    const named = (id: string, full: string, half: string) => [
      { inventory_id: id, variant: 'Inteira', seats: [full] },
      { inventory_id: id, variant: 'Meia-entrada', seats: [half] },
    ]
    const sequence = (id: string) =>
      [party(id, 2, 2), named(id, 'A2', 'A1'), party(id, 1, 1), named(id, 'A11', 'A9'), party(id, 3, 1), party(id, 1, 0).slice(0, 1)].map(
        (items) => () => create(items),
      )
    await ctx.app.db.update(sellers).set({ seatingNoOrphans: true }).where(eq(sellers.id, seller.seller.id))
    try {
      const one = await copy()
      const two = await copy()
      const together = await grouped([one], sequence(one))
      const alone = await oneByOne(sequence(two))

      expect(together.map((res) => res.statusCode)).toEqual([201, 201, 201, 409, 201, 409])
      expect(together.map((res) => answerOf(res, { [one]: 'S' }))).toEqual(alone.map((res) => answerOf(res, { [two]: 'S' })))
      const seatsOf = (res: { body: string }) => JSON.parse(res.body).items.map((item: { seats: { id: string }[] }) => item.seats.map((seat) => seat.id))
      expect(together.filter((res) => res.statusCode === 201).map(seatsOf)).toEqual([
        [
          ['A5', 'A6'],
          ['A7', 'A8'],
        ],
        [['A2'], ['A1']],
        [['A3'], ['A4']],
        [['A9', 'A10', 'A11'], ['A12']],
      ])
      expect(JSON.parse(together[3]!.body)).toMatchObject({ code: 'seat_orphan', details: { seats: ['A10', 'A12'] } })
      expect(await countsOf(one)).toEqual({ sold: 0, held: 12 })
      expect(await countsOf(one)).toEqual(await countsOf(two))
    } finally {
      await ctx.app.db.update(sellers).set({ seatingNoOrphans: false }).where(eq(sellers.id, seller.seller.id))
    }
  })
})

describe('seats held back for the waiting list, in a group as one by one', () => {
  it('naming a reserved seat is seat_unavailable, asking for best available insufficient_inventory', async () => {
    const copy = async () => {
      const { inventory } = await createSeatedInventory(ctx.app, adm, seller.seller.id, [{ category: 'Plateia', seats: 4 }], 'Plateia', { waiting_list: true })
      const basket = await create([{ inventory_id: inventory.id, quantity: 4 }])
      expect(basket.statusCode, basket.body).toBe(201)
      const joined = await ctx.app.inject({
        method: 'POST',
        url: '/stf/v1/waiting-list',
        headers: seller.auth,
        payload: { inventory_id: inventory.id, quantity: 3, email: `group-${inventory.id}@example.com` },
      })
      expect(joined.statusCode, joined.body).toBe(201)
      // A3 and A4 come back, held back for the head of the queue (who waits for 3).
      const fewer = await ctx.app.inject({
        method: 'PATCH',
        url: `/stf/v1/baskets/${basket.json().id}/items`,
        headers: seller.auth,
        payload: { items: [{ inventory_id: inventory.id, seats: ['A1', 'A2'] }] },
      })
      expect(fewer.statusCode, fewer.body).toBe(200)
      return inventory.id
    }
    const sequence = (id: string) =>
      [[{ inventory_id: id, seats: ['A3'] }], [{ inventory_id: id, quantity: 1 }], [{ inventory_id: id, seats: ['A4', 'A2'] }]].map(
        (items) => () => create(items),
      )
    const one = await copy()
    const two = await copy()
    const together = await grouped([one], sequence(one))
    const alone = await oneByOne(sequence(two))

    expect(together.map((res) => JSON.parse(res.body).code)).toEqual(['seat_unavailable', 'insufficient_inventory', 'seat_unavailable'])
    expect(together.map((res) => answerOf(res, { [one]: 'S' }))).toEqual(alone.map((res) => answerOf(res, { [two]: 'S' })))
    expect(JSON.parse(together[2]!.body).details.seats.sort()).toEqual(['A2', 'A4'])
    expect(await countsOf(one)).toEqual({ sold: 0, held: 2 })
  })
})

describe('checkouts decided in a group answer as one by one', () => {
  /** Three held baskets of one inventory, each with its buyer. */
  async function threeBaskets(inventoryId: string) {
    const held = []
    for (const quantity of [1, 2, 3]) {
      const res = await create([{ inventory_id: inventoryId, quantity }])
      expect(res.statusCode, res.body).toBe(201)
      held.push({ id: JSON.parse(res.body).id as string, buyer: await insertSignedInCustomer(ctx.app, seller) })
    }
    return held
  }

  it('sells a whole group in one transaction', async () => {
    const one = await anInventory(10)
    const two = await anInventory(10)
    const sequence = (held: Awaited<ReturnType<typeof threeBaskets>>) =>
      held.map(
        ({ id, buyer }) =>
          () =>
            checkout(id, buyer.headers),
      )
    const together = await grouped([one.inventory.id], sequence(await threeBaskets(one.inventory.id)))
    const alone = await oneByOne(sequence(await threeBaskets(two.inventory.id)))

    expect(together.map((res) => res.statusCode)).toEqual([201, 201, 201])
    expect(together.map((res) => answerOf(res, { [one.inventory.id]: 'I' }).tickets)).toEqual([1, 2, 3])
    expect(together.map((res) => answerOf(res, { [one.inventory.id]: 'I' }).status)).toEqual(alone.map((res) => answerOf(res, {}).status))
    expect(await countsOf(one.inventory.id)).toEqual({ sold: 6, held: 0 })
    expect(await countsOf(two.inventory.id)).toEqual({ sold: 6, held: 0 })
  })

  it('a group whose middle checkout is refused under the locks (a total other than charged): it rolls back, and each is sold alone', async () => {
    const one = await anInventory(10)
    const two = await anInventory(10)
    // The second buyer was charged 1 centavo: refused with price_changed, decided under the locks, after its sale ran.
    const sequence = (held: Awaited<ReturnType<typeof threeBaskets>>) =>
      held.map(
        ({ id, buyer }, n) =>
          () =>
            checkout(id, buyer.headers, n === 1 ? { expected_total: 1 } : {}),
      )
    const together = await grouped([one.inventory.id], sequence(await threeBaskets(one.inventory.id)))
    const alone = await oneByOne(sequence(await threeBaskets(two.inventory.id)))

    expect(together.map((res) => res.statusCode)).toEqual([201, 409, 201])
    expect(JSON.parse(together[1]!.body).code).toBe('price_changed')
    expect(together.map((res) => answerOf(res, {}).status)).toEqual(alone.map((res) => answerOf(res, {}).status))
    expect(await countsOf(one.inventory.id)).toEqual({ sold: 4, held: 2 })
    expect(await countsOf(one.inventory.id)).toEqual(await countsOf(two.inventory.id))
  })

  it('a group with a lapsed basket in the middle: it alone is refused, the others are sold', async () => {
    const one = await anInventory(10)
    const two = await anInventory(10)
    const lapse = (id: string) => ctx.app.db.update(baskets).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(baskets.id, id))
    const sequence = (held: Awaited<ReturnType<typeof threeBaskets>>) =>
      held.map(
        ({ id, buyer }) =>
          () =>
            checkout(id, buyer.headers),
      )
    const first = await threeBaskets(one.inventory.id)
    const second = await threeBaskets(two.inventory.id)
    const together = await grouped([one.inventory.id], sequence(first), () => lapse(first[1]!.id))
    const alone = await oneByOne(sequence(second), () => lapse(second[1]!.id))

    expect(together.map((res) => res.statusCode)).toEqual([201, 410, 201])
    expect(together.map((res) => answerOf(res, {}).status)).toEqual(alone.map((res) => answerOf(res, {}).status))
    expect(JSON.parse(together[1]!.body).code).toBe(JSON.parse(alone[1]!.body).code)
    expect(await countsOf(one.inventory.id)).toEqual({ sold: 4, held: 0 })
    expect(await countsOf(one.inventory.id)).toEqual(await countsOf(two.inventory.id))
    const sold = await ctx.app.db.select({ basketId: orders.basketId }).from(orders).where(eq(orders.basketId, first[1]!.id))
    expect(sold).toEqual([])
  })
})
