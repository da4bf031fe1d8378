import { eq, sql } from 'drizzle-orm'
import pg from 'pg'
import { beforeAll, describe, expect, it } from 'vitest'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { heldQuantities } from '../../src/domain/inventory/held.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { createTestSeller, type TestSeller } from '../factories/sellers.js'
import { testDatabaseUrl, usesPostgres } from '../support/database.js'
import { answerOf, oneByOne, sendGrouped, until, type Request } from '../support/hold-groups.js'

// A group that fails as a whole sends its members alone, in order (issue 45): each must be
// answered as soon as its own basket is settled, not once the last is. The case: a group of three
// that fails, whose third member's own take is held up by a lock the test holds (a trigger on the
// rows only that take writes waits for it). Once the third waits on that lock, the first two
// must have their answers. Two transactions at once need PostgreSQL (the embedded database runs
// one at a time): there, only the answers, as one by one, are checked.
const ctx = useTestApp({ env: { HOLDS_PER_INVENTORY: '1' } })
let seller: TestSeller

beforeAll(async () => {
  seller = await createTestSeller(ctx.app)
})

/** The advisory lock the test holds and the third member's take waits for. */
const GATE = 45_045

const create = (inventoryId: string, quantity: number) =>
  ctx.app.inject({ method: 'POST', url: '/stf/v1/baskets', headers: seller.auth, payload: { items: [{ inventory_id: inventoryId, quantity }] } })
const checkout = (basketId: string, headers: Record<string, string>, extra: Record<string, unknown> = {}) =>
  ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${basketId}/checkout`, headers, payload: { payment_method: 'pix', ...extra } })

async function countsOf(inventoryId: string) {
  const [row] = await ctx.app.db.select({ sold: inventories.sold }).from(inventories).where(eq(inventories.id, inventoryId))
  return { sold: row!.sold, held: (await heldQuantities(ctx.app.db, [inventoryId])).get(inventoryId) ?? 0 }
}

async function anInventory(capacity: number) {
  return createTestInventory(ctx.app, await createTestEvent(ctx.app, seller.seller.id), { capacity })
}

/** A trigger on `table` for the duration of `work`: `body` (PL/pgSQL statements) runs before each row written where `when` holds. */
async function withTrigger<T>(table: string, events: string, when: string, body: string, work: () => Promise<T>): Promise<T> {
  await ctx.app.db.execute(
    sql.raw(`create or replace function test_group_fault() returns trigger language plpgsql as $fault$ begin ${body} return new; end $fault$`),
  )
  await ctx.app.db.execute(
    sql.raw(`create trigger test_group_fault before ${events} on ${table} for each row when (${when}) execute function test_group_fault()`),
  )
  try {
    return await work()
  } finally {
    await ctx.app.db.execute(sql.raw(`drop trigger test_group_fault on ${table}`))
    await ctx.app.db.execute(sql.raw('drop function test_group_fault()'))
  }
}

/** Waits on the test's lock inside a take (PostgreSQL; free on the embedded database, where nobody holds it). */
const waitAtGate = `perform pg_advisory_xact_lock_shared(${GATE});`

/**
 * Sends the requests as one group while the test holds the gate (on PostgreSQL), waits until a
 * take waits at it, and answers which requests were answered by then; then lets go and answers
 * them all.
 */
async function groupedAgainstGate(inventoryId: string, requests: Request[]) {
  const gate = usesPostgres() ? new pg.Client({ connectionString: await testDatabaseUrl() }) : undefined
  await gate?.connect()
  try {
    await gate?.query('select pg_advisory_lock($1)', [GATE])
    const answers = await sendGrouped(ctx.app, [inventoryId], requests)
    const answered = answers.map(() => false)
    for (const [n, answer] of answers.entries()) {
      void answer.then(() => {
        answered[n] = true
      })
    }
    let answeredWhileWaiting: boolean[] | undefined
    if (gate) {
      await until(async () => {
        const { rows } = await gate.query(
          `select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database
            where l.locktype = 'advisory' and not l.granted and l.objid = $1 and d.datname = current_database()`,
          [GATE],
        )
        return rows[0].n > 0
      }, 'a take waits at the gate')
      answeredWhileWaiting = [...answered]
      await gate.query('select pg_advisory_unlock($1)', [GATE])
    }
    return { answers: await Promise.all(answers), answeredWhileWaiting }
  } finally {
    await gate?.end()
  }
}

describe('a group that fails answers each member as soon as its basket is settled', () => {
  it('holds: the first two are answered while the third one’s own hold still waits, and all as one by one', async () => {
    const one = await anInventory(10)
    const two = await anInventory(10)
    const sequence = (id: string) => [1, 2, 3].map((quantity) => () => create(id, quantity))
    // The group's statement fails (no hold of it explains it), so each basket is opened alone; the
    // third one's own hold waits at the gate.
    const { answers, answeredWhileWaiting } = await withTrigger(
      'basket_items',
      'insert',
      `new.inventory_id = '${one.id}'`,
      `if current_query() ilike '%take_tickets_group%' then raise exception 'a group that fails as a whole'; end if;
       if new.quantity = 3 then ${waitAtGate} end if;`,
      () => groupedAgainstGate(one.id, sequence(one.id)),
    )
    const alone = await oneByOne(sequence(two.id))

    if (usesPostgres()) expect(answeredWhileWaiting).toEqual([true, true, false])
    expect(answers.map((res) => res.statusCode)).toEqual([201, 201, 201])
    expect(answers.map((res) => answerOf(res, { [one.id]: 'I' }))).toEqual(alone.map((res) => answerOf(res, { [two.id]: 'I' })))
    expect(await countsOf(one.id)).toEqual({ sold: 0, held: 6 })
  })

  it('checkouts: the first two are answered while the third one’s own sale still waits, and all as one by one', async () => {
    const one = await anInventory(10)
    const two = await anInventory(10)
    const held = async (inventoryId: string) => {
      const baskets = []
      for (const quantity of [1, 2, 3]) {
        const res = await create(inventoryId, quantity)
        expect(res.statusCode, res.body).toBe(201)
        baskets.push({ id: JSON.parse(res.body).id as string, buyer: await insertSignedInCustomer(ctx.app, seller) })
      }
      return baskets
    }
    // The second buyer was charged 1 centavo: refused under the locks, so the group rolls back and
    // each basket is checked out alone; the third one's own sale (3 tickets) waits at the gate.
    const sequence = (baskets: Awaited<ReturnType<typeof held>>) =>
      baskets.map(
        ({ id, buyer }, n) =>
          () =>
            checkout(id, buyer.headers, n === 1 ? { expected_total: 1 } : {}),
      )
    const first = await held(one.id)
    const { answers, answeredWhileWaiting } = await withTrigger('inventories', 'update', `new.id = '${one.id}' and new.sold = old.sold + 3`, waitAtGate, () =>
      groupedAgainstGate(one.id, sequence(first)),
    )
    const alone = await oneByOne(sequence(await held(two.id)))

    if (usesPostgres()) expect(answeredWhileWaiting).toEqual([true, true, false])
    expect(answers.map((res) => res.statusCode)).toEqual([201, 409, 201])
    expect(answers.map((res) => answerOf(res, {}).code)).toEqual(alone.map((res) => answerOf(res, {}).code))
    expect(answers.map((res) => answerOf(res, {}).tickets)).toEqual(alone.map((res) => answerOf(res, {}).tickets))
    expect(await countsOf(one.id)).toEqual({ sold: 4, held: 2 })
    expect(await countsOf(one.id)).toEqual(await countsOf(two.id))
  })
})
