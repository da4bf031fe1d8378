import { eq, sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { baskets } from '../../src/domain/baskets/baskets.table.js'
import { tickets } from '../../src/domain/orders/orders.table.js'
import { useTestApp } from '../build-app.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { createSeatedInventory, type TestRow } from '../factories/seating.js'
import { useTwoSellers, type TestSeller } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { createStaff } from '../support/staff.js'

/**
 * Seat standings kept per seated inventory (inventory_seats): the triggers that keep each seat's
 * sale and block, and best available reading only the rows it may take from, answering what a
 * reading of every seat answers.
 */
const ctx = useTestApp()
const [a] = useTwoSellers(ctx)
let adm: AdmClient

beforeAll(async () => {
  adm = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.catalog.read', 'adm.catalog.write', 'adm.orders.read', 'adm.orders.write'] })).auth)
})

type Headers = Record<string, string>
type Item = { inventory_id: string; quantity?: number; seats?: string[]; together?: boolean }

const create = (headers: Headers, items: Item[]) => ctx.app.inject({ method: 'POST', url: '/stf/v1/baskets', headers, payload: { items } })
const checkout = (basketId: string, headers: Headers) =>
  ctx.app.inject({ method: 'POST', url: `/stf/v1/baskets/${basketId}/checkout`, headers, payload: { payment_method: 'pix' } })

const seated = (seller: TestSeller, rows: TestRow[]) => createSeatedInventory(ctx.app, adm, seller.seller.id, rows)

/** The seats of the inventory whose kept standing differs from what its plan, tickets and blocks say. */
async function drift(inventoryId: string) {
  const { rows } = await ctx.app.db.execute<{ seat_id: string }>(sql`
    with expected as (
      select i.id as inventory_id, p.seat_id, p.zone_index, p.row_index, p.ord, p.run, p.row_seats, t.id as ticket_id, b.seat_id is not null as blocked
        from inventories i
        join seating_plan_seats p on p.plan_id = i.seating_plan_id and p.category = i.seating_category
        left join tickets t on t.inventory_id = i.id and t.seat_id = p.seat_id and t.voided_at is null
        left join seat_blocks b on b.inventory_id = i.id and b.seat_id = p.seat_id
       where i.id = ${inventoryId}
    ), kept as (select * from inventory_seats where inventory_id = ${inventoryId})
    select coalesce(e.seat_id, k.seat_id) as seat_id
      from expected e full join kept k on k.seat_id = e.seat_id
     where e.seat_id is null or k.seat_id is null
        or (e.zone_index, e.row_index, e.ord, e.run, e.row_seats, e.blocked) is distinct from (k.zone_index, k.row_index, k.ord, k.run, k.row_seats, k.blocked)
        or e.ticket_id is distinct from k.ticket_id`)
  return rows.map((row) => row.seat_id)
}

const keptSeats = async (inventoryId: string) =>
  (
    await ctx.app.db.execute<{ n: number; sold: number; blocked: number }>(sql`
    select count(*)::int as n, count(ticket_id)::int as sold, count(*) filter (where blocked)::int as blocked from inventory_seats where inventory_id = ${inventoryId}`)
  ).rows[0]!

describe('seat standings kept per seated inventory', () => {
  it('follow the inventory’s seating, its sales, voids, cancellations and blocks', async () => {
    const rows = [
      { category: 'Plateia', seats: 6 },
      { category: 'Plateia', seats: 6, aisleAfter: [3] },
      { category: 'Balcão', seats: 4 },
    ]
    const { plan, inventory } = await seated(a, rows)
    expect(await keptSeats(inventory.id)).toEqual({ n: 12, sold: 0, blocked: 0 })
    expect(await drift(inventory.id)).toEqual([])

    const customer = await insertSignedInCustomer(ctx.app, a)
    const basket = (await create(customer.headers, [{ inventory_id: inventory.id, seats: ['A1', 'A2', 'B5'] }])).json()
    const order = await checkout(basket.id, customer.headers)
    expect(order.statusCode, order.body).toBe(201)
    expect(await keptSeats(inventory.id)).toMatchObject({ sold: 3 })
    expect(await drift(inventory.id)).toEqual([])

    const [ticket] = await ctx.app.db.select().from(tickets).where(eq(tickets.seatId, 'A1'))
    expect((await adm.post(`/orders/${order.json().id}/tickets/${ticket!.identifier}/void`)).statusCode).toBe(200)
    expect(await keptSeats(inventory.id)).toMatchObject({ sold: 2 })
    expect(await drift(inventory.id)).toEqual([])

    expect((await adm.post(`/inventories/${inventory.id}/seats/block`, { seats: ['A3', 'B1'], blocked: true })).statusCode).toBe(200)
    expect(await keptSeats(inventory.id)).toMatchObject({ blocked: 2 })
    expect((await adm.post(`/inventories/${inventory.id}/seats/block`, { seats: ['B1'], blocked: false })).statusCode).toBe(200)
    expect(await keptSeats(inventory.id)).toMatchObject({ blocked: 1 })
    expect(await drift(inventory.id)).toEqual([])

    expect((await adm.post(`/orders/${order.json().id}/cancel`)).statusCode).toBe(200)
    expect(await keptSeats(inventory.id)).toMatchObject({ sold: 0 })
    expect(await drift(inventory.id)).toEqual([])

    // Another category of the same plan, while nothing is held or sold: the seats follow.
    const other = await seated(a, [{ category: 'Plateia', seats: 2 }])
    const moved = await adm.put(`/inventories/${other.inventory.id}`, { seating: { plan_id: plan.id, category: 'Balcão' } })
    expect(moved.statusCode, moved.body).toBe(200)
    expect(await keptSeats(other.inventory.id)).toMatchObject({ n: 4 })
    expect(await drift(other.inventory.id)).toEqual([])
    expect((await adm.put(`/inventories/${other.inventory.id}`, { seating: null, capacity: 10 })).statusCode).toBe(200)
    expect(await keptSeats(other.inventory.id)).toMatchObject({ n: 0 })
  })
})

/** Best available as a reading of every seat of the inventory decides it (seat_standings with p_only null), in one pass. */
const everySeat = (inventoryId: string, quantity: number, together: boolean, excluded: string[]) => sql`
  with free as (
    select s.seat_id, s.zone_index, s.row_index, s.run, s.ord, s.row_seats,
           s.ord - row_number() over (partition by s.zone_index, s.row_index, s.run order by s.ord) as island
      from seat_standings(${inventoryId}::uuid, null, null) as s
     where s.status = 'free' and not (s.seat_id = any (${sql.param(excluded)}::text[]))
  ), islands as (
    select f.zone_index, f.row_index, f.run, f.island, min(f.ord) as lo, max(f.ord) as hi, max(f.row_seats) as row_seats
      from free f group by f.zone_index, f.row_index, f.run, f.island
  ), block as (
    select g.zone_index, g.row_index, a.first
      from islands g cross join lateral generate_series(g.lo, g.hi - ${quantity}::int + 1) as a(first)
     order by (a.first - g.lo = 1 or g.hi - (a.first + ${quantity}::int - 1) = 1), g.zone_index, g.row_index,
              abs((a.first + (${quantity}::int - 1) / 2.0) - (g.row_seats - 1) / 2.0), a.first
     limit 1
  )
  select case
           when exists (select 1 from block) then
             (select array_agg(f.seat_id order by f.ord) from free f join block b
                on f.zone_index = b.zone_index and f.row_index = b.row_index and f.ord between b.first and b.first + ${quantity}::int - 1)
           when not ${together}::boolean and (select count(*) from free) >= ${quantity}::int then
             (select array_agg(x.seat_id) from (select f.seat_id from free f
                order by f.zone_index, f.row_index, abs(f.ord - (f.row_seats - 1) / 2.0), f.ord limit ${quantity}::int) x)
         end as seats,
         (select coalesce(max(g.hi - g.lo + 1), 0)::int from islands g) as max_together`

const bestAvailable = (inventoryId: string, quantity: number, together: boolean, excluded: string[]) =>
  sql`select seats, max_together from seats_best_available(${inventoryId}::uuid, null, ${quantity}::int, ${together}::boolean, ${sql.param(excluded)}::text[])`

describe('best available reads the first rows with a free seat', () => {
  const threes = (n: number): TestRow[] => Array.from({ length: n }, () => ({ category: 'Plateia', seats: 3 }))
  const pick = async (inventoryId: string, quantity: number) => {
    const res = await create(a.auth, [{ inventory_id: inventoryId, quantity }])
    expect(res.statusCode, res.body).toBe(201)
    return res.json().items[0].seats.map((seat: { row: string; number: string }) => `${seat.row}-${seat.number}`)
  }

  it('and further only while every block there strands a seat: in the 6th row, the 70th, or the first when none avoids it', async () => {
    // Rows of 3: every block of 2 strands one. A row of 4 at the 6th and at the 70th place has a block that strands nobody.
    const sixth = await seated(a, [...threes(5), { category: 'Plateia', seats: 4 }, ...threes(70)])
    expect(await pick(sixth.inventory.id, 2)).toEqual(['F-1', 'F-2'])
    const seventieth = await seated(a, [...threes(69), { category: 'Plateia', seats: 4 }])
    expect(await pick(seventieth.inventory.id, 2)).toEqual([`${String.fromCharCode(65 + 69)}-1`, `${String.fromCharCode(65 + 69)}-2`])
    const none = await seated(a, threes(70))
    expect(await pick(none.inventory.id, 2)).toEqual(['A-1', 'A-2'])
  })

  it('and answers what a reading of every seat answers, as seats are held, sold and blocked', async () => {
    const rows: TestRow[] = Array.from({ length: 12 }, (_, r) => ({ category: 'Plateia', seats: 6 + (r % 4), aisleAfter: r % 3 === 0 ? [3] : [] }))
    const { inventory } = await seated(a, rows)
    const seats = rows.flatMap((row, r) => Array.from({ length: row.seats }, (_, n) => `${String.fromCharCode(65 + r)}${n + 1}`))
    // A fixed pseudo-random sequence (a linear congruential generator), so that a failure repeats.
    let state = 7
    const random = (n: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31
      return state % n
    }
    const customer = await insertSignedInCustomer(ctx.app, a)
    let compared = 0
    for (let step = 0; step < 24; step++) {
      const some = Array.from(new Set(Array.from({ length: 1 + random(3) }, () => seats[random(seats.length)]!)))
      const kind = random(4)
      if (kind === 0) await adm.post(`/inventories/${inventory.id}/seats/block`, { seats: some, blocked: random(3) > 0 })
      else if (kind === 1) {
        const held = await create(customer.headers, [{ inventory_id: inventory.id, seats: some }])
        if (held.statusCode === 201) await checkout(held.json().id, customer.headers)
      } else if (kind === 2) {
        const held = await create(a.auth, [{ inventory_id: inventory.id, seats: some }])
        if (held.statusCode === 201 && random(2) === 0)
          await ctx.app.db.update(baskets).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(baskets.id, held.json().id))
      } else await create(a.auth, [{ inventory_id: inventory.id, quantity: 1 + random(3) }])
      expect(await drift(inventory.id)).toEqual([])
      for (const quantity of [1, 2, 3, 5, 8]) {
        for (const together of [true, false]) {
          const excluded = random(2) === 0 ? [] : [seats[random(seats.length)]!, seats[random(seats.length)]!]
          const [expected] = (await ctx.app.db.execute<{ seats: string[] | null; max_together: number }>(everySeat(inventory.id, quantity, together, excluded)))
            .rows
          const [actual] = (
            await ctx.app.db.execute<{ seats: string[] | null; max_together: number }>(bestAvailable(inventory.id, quantity, together, excluded))
          ).rows
          expect(actual!.seats, `step ${step}, ${quantity} seats, together ${together}, excluding ${excluded}`).toEqual(expected!.seats)
          if (expected!.seats === null) expect(actual!.max_together).toBe(expected!.max_together)
          compared++
        }
      }
    }
    expect(compared).toBe(24 * 10)
  })
})
