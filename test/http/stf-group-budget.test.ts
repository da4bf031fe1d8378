import { eq, sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { baskets } from '../../src/domain/baskets/baskets.table.js'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { heldQuantities } from '../../src/domain/inventory/held.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { createSeatedInventory } from '../factories/seating.js'
import { createTestSeller, type TestSeller } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { answerOf, grouped, oneByOne, type Request } from '../support/hold-groups.js'
import { createStaff } from '../support/staff.js'

// A group's statement takes no further member once it has run its budget (issue 45:
// take_tickets_group.sql, HOLDS_GROUP_BUDGET_MS). A budget of 0 makes it spent after the first
// member, every time, whatever a take costs: each transaction of a group then decides exactly
// one member, and the others are sent on in order. Every case runs one sequence grouped and one
// by one, on two identical copies, and the answers and counts must be the same; the rows each
// transaction wrote (their xmin) show that no statement decided more than one member.
const ctx = useTestApp({ env: { HOLDS_PER_INVENTORY: '1', HOLDS_GROUP_BUDGET_MS: '0' } })
let seller: TestSeller
let adm: AdmClient

beforeAll(async () => {
  seller = await createTestSeller(ctx.app)
  adm = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.catalog.read', 'adm.catalog.write'] })).auth)
})

type Item = { inventory_id: string; quantity?: number; seats?: string[]; variant?: string }

const create = (items: Item[]) => ctx.app.inject({ method: 'POST', url: '/stf/v1/baskets', headers: seller.auth, payload: { items } })
const checkout = (basketId: string, headers: Record<string, string>) =>
  ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${basketId}/checkout`, headers, payload: { payment_method: 'pix' } })

async function countsOf(inventoryId: string) {
  const [row] = await ctx.app.db.select({ sold: inventories.sold }).from(inventories).where(eq(inventories.id, inventoryId))
  return { sold: row!.sold, held: (await heldQuantities(ctx.app.db, [inventoryId])).get(inventoryId) ?? 0 }
}

async function anInventory(capacity: number) {
  return createTestInventory(ctx.app, await createTestEvent(ctx.app, seller.seller.id), { capacity })
}

/** How many transactions wrote these rows of `table` (by id). */
async function writersOf(table: 'baskets' | 'orders', ids: string[]) {
  const rows = await ctx.app.db.execute(
    sql`select count(distinct xmin::text)::int as n from ${sql.identifier(table)} where id = any(${sql.param(ids)}::uuid[])`,
  )
  return (rows.rows[0] as { n: number }).n
}

const createdIds = (answers: { statusCode: number; body: string }[]) =>
  answers.filter((res) => res.statusCode === 201).map((res) => JSON.parse(res.body).id as string)

describe('a group of holds whose budget is spent', () => {
  it('decides one hold per transaction, in arrival order, each answered as one by one; those put off leave nothing', async () => {
    const sequence = (id: string) => [2, 2, 4, 1, 1].map((quantity) => () => create([{ inventory_id: id, quantity }]))
    const one = await anInventory(5)
    const two = await anInventory(5)
    const together = await grouped(ctx.app, [one.id], sequence(one.id))
    const alone = await oneByOne(sequence(two.id))

    expect(together.map((res) => res.statusCode)).toEqual([201, 201, 409, 201, 409])
    expect(together.map((res) => answerOf(res, { [one.id]: 'I' }))).toEqual(alone.map((res) => answerOf(res, { [two.id]: 'I' })))
    expect(await countsOf(one.id)).toEqual({ sold: 0, held: 5 })
    const kept = createdIds(together)
    // Each basket kept was committed by a transaction of its own.
    expect(await writersOf('baskets', kept)).toBe(3)
    // Nothing else: no basket without items (put off or refused), one audit entry per basket kept.
    const orphans = await ctx.app.db.execute(
      sql`select count(*)::int as n from baskets b where not exists (select 1 from basket_items i where i.basket_id = b.id)`,
    )
    expect(orphans.rows[0]).toEqual({ n: 0 })
    const audited = await ctx.app.db.execute(
      sql`select count(*)::int as n from audit_log where action = 'stf.basket.created' and target_id = any(${sql.param(kept)}::uuid[])`,
    )
    expect(audited.rows[0]).toEqual({ n: 3 })
    const stored = await ctx.app.db.execute(
      sql`select count(distinct b.id)::int as n from baskets b join basket_items i on i.basket_id = b.id where i.inventory_id = ${one.id}`,
    )
    expect(stored.rows[0]).toEqual({ n: 3 })
  })

  it('seats too: named and best available, one hold per transaction, answered as one by one', async () => {
    const copy = async () => (await createSeatedInventory(ctx.app, adm, seller.seller.id, [{ category: 'Plateia', seats: 6 }])).inventory.id
    const sequence = (seats: string) =>
      [
        [{ inventory_id: seats, seats: ['A3', 'A4'] }],
        [{ inventory_id: seats, quantity: 2 }],
        [{ inventory_id: seats, seats: ['A4', 'A5'] }],
        [{ inventory_id: seats, quantity: 2 }],
        [{ inventory_id: seats, quantity: 1 }],
      ].map((items) => () => create(items))
    const one = await copy()
    const two = await copy()
    const together = await grouped(ctx.app, [one], sequence(one))
    const alone = await oneByOne(sequence(two))

    expect(together.map((res) => res.statusCode)).toEqual([201, 201, 409, 201, 409])
    expect(together.map((res) => answerOf(res, { [one]: 'S' }))).toEqual(alone.map((res) => answerOf(res, { [two]: 'S' })))
    expect(await writersOf('baskets', createdIds(together))).toBe(3)
    expect(await countsOf(one)).toEqual(await countsOf(two))
  })
})

describe('a group of checkouts whose budget is spent', () => {
  /** Held baskets of one inventory, each with its buyer. */
  async function heldBaskets(inventoryId: string, quantities: number[]) {
    const held = []
    for (const quantity of quantities) {
      const res = await create([{ inventory_id: inventoryId, quantity }])
      expect(res.statusCode, res.body).toBe(201)
      held.push({ id: JSON.parse(res.body).id as string, buyer: await insertSignedInCustomer(ctx.app, seller) })
    }
    return held
  }
  const sequence = (held: Awaited<ReturnType<typeof heldBaskets>>): Request[] =>
    held.map(
      ({ id, buyer }) =>
        () =>
          checkout(id, buyer.headers),
    )
  const orderIds = (answers: { statusCode: number; body: string }[]) => createdIds(answers)

  it('sells one basket per transaction, in arrival order, each answered as one by one', async () => {
    const one = await anInventory(20)
    const two = await anInventory(20)
    const together = await grouped(ctx.app, [one.id], sequence(await heldBaskets(one.id, [1, 2, 3, 1])))
    const alone = await oneByOne(sequence(await heldBaskets(two.id, [1, 2, 3, 1])))

    expect(together.map((res) => res.statusCode)).toEqual([201, 201, 201, 201])
    expect(together.map((res) => answerOf(res, {}).tickets)).toEqual(alone.map((res) => answerOf(res, {}).tickets))
    expect(await writersOf('orders', orderIds(together))).toBe(4)
    expect(await countsOf(one.id)).toEqual({ sold: 7, held: 0 })
    expect(await countsOf(one.id)).toEqual(await countsOf(two.id))
  })

  it('with a lapsed basket in the middle: it alone is refused, the others are sold, one per transaction', async () => {
    const one = await anInventory(20)
    const two = await anInventory(20)
    const lapse = (id: string) => ctx.app.db.update(baskets).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(baskets.id, id))
    const first = await heldBaskets(one.id, [1, 2, 3])
    const second = await heldBaskets(two.id, [1, 2, 3])
    const together = await grouped(ctx.app, [one.id], sequence(first), () => lapse(first[1]!.id))
    const alone = await oneByOne(sequence(second), () => lapse(second[1]!.id))

    expect(together.map((res) => res.statusCode)).toEqual([201, 410, 201])
    expect(together.map((res) => answerOf(res, {}).code)).toEqual(alone.map((res) => answerOf(res, {}).code))
    expect(await writersOf('orders', orderIds(together))).toBe(2)
    expect(await countsOf(one.id)).toEqual({ sold: 4, held: 0 })
    expect(await countsOf(one.id)).toEqual(await countsOf(two.id))
  })
})
