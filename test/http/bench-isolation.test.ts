import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { buildBenchApp } from '../../bench/server/app.js'
import type { SeatedSaleState } from '../../bench/server/flash-sale.js'
import type { BenchSeed } from '../../bench/server/seed-bench.js'
import type { StadiumSeed } from '../../bench/server/seed-stadium.js'
import { buildTestApp, testConfig } from '../build-app.js'
import { createTestSeller } from '../factories/sellers.js'
import { resetDatabase, testDatabase } from '../support/database.js'

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(path.join(dir, entry.name)) : [path.join(dir, entry.name)]))

beforeAll(async () => {
  await resetDatabase(await testDatabase())
})

describe('the benchmark stays out of the product', () => {
  it('src/ holds no benchmark code and reads no switch that would open it', () => {
    const src = path.resolve(import.meta.dirname, '../../src')
    for (const file of files(src)) {
      const text = readFileSync(file, 'utf8')
      // Static and dynamic imports alike (the old switch loaded the routes with `await import(…)`).
      expect(text, file).not.toMatch(/(from|import\(|require\()\s*['"`][^'"`]*bench/)
      expect(text, file).not.toMatch(/BENCH_MODE|benchMode/)
    }
  })

  it('no configuration opens the benchmark routes in the product', async () => {
    const app = await buildTestApp({ env: { BENCH_MODE: 'true' } })
    try {
      const seller = await createTestSeller(app)
      for (const [method, url] of [
        ['GET', '/bench/ping'],
        ['POST', '/bench/seed'],
        ['POST', '/bench/raw-sell'],
        ['GET', '/bench/events'],
        ['POST', '/bench/stadium/seed'],
      ] as const) {
        expect((await app.inject({ method, url })).statusCode, `${method} ${url}`).toBe(404)
      }
      expect((await app.inject({ method: 'GET', url: '/stf/v1/bench/ping', headers: seller.auth })).statusCode).toBe(404)
    } finally {
      await app.close()
    }
  })

  describe("the benchmark's own server", () => {
    let bench: Awaited<ReturnType<typeof buildBenchApp>>
    beforeAll(async () => {
      bench = await buildBenchApp({ config: testConfig(), database: await testDatabase(), startWorkers: false })
      await bench.ready()
    })
    afterAll(() => bench?.close())

    it('is the product app with its baseline routes added, the storefront one behind Basic authentication', async () => {
      const seller = await createTestSeller(bench)
      expect((await bench.inject({ method: 'GET', url: '/bench/ping' })).statusCode).toBe(200)
      expect((await bench.inject({ method: 'GET', url: '/stf/v1/bench/ping' })).statusCode).toBe(401)
      expect((await bench.inject({ method: 'GET', url: '/stf/v1/bench/ping', headers: seller.auth })).statusCode).toBe(200)
      expect((await bench.inject({ method: 'GET', url: '/stf/v1/events', headers: seller.auth })).statusCode).toBe(200)
    })

    it("seeds the stadium through the product's hold, checkout and blocks: the middle half of every row sold, all but two seats a row blocked", async () => {
      const seed = (await bench.inject({ method: 'POST', url: '/bench/seed', payload: { flash_capacity: 10, customers: 1 } })).json() as BenchSeed
      const seeded = await bench.inject({
        method: 'POST',
        url: '/bench/stadium/seed',
        payload: { seller_id: seed.sellerId, customer_id: seed.customers[0]!.id, rows: 3 },
      })
      expect(seeded.statusCode).toBe(200)
      const stadium = seeded.json() as StadiumSeed
      expect(stadium).toMatchObject({ seats: 150, rows: 3, holdsSold: 75, holdsOrders: 4, saleBlocked: 144, onSale: 6 })
      const seats = async (id: string) => (await bench.inject({ method: 'GET', url: `/bench/inventories/${id}/seats` })).json() as SeatedSaleState
      // Sold as a checkout sells: counted, on valid tickets of confirmed orders, one seat each, none left held.
      expect(await seats(stadium.holds)).toMatchObject({
        capacity: 150,
        sold: 75,
        seats_sold: 75,
        seats_held: 0,
        seats_blocked: 0,
        seats_free: 75,
        tickets: 75,
        tickets_confirmed: 75,
        distinct_seats: 75,
        seats_on_one_ticket: 75,
        orders: 4,
        ordered: 75,
        items_seats_mismatch: 0,
        held: 0,
      })
      const sold = (
        await bench.db.execute<{ seat_id: string }>(
          sql`select seat_id from tickets where inventory_id = ${stadium.holds} and voided_at is null order by seat_id`,
        )
      ).rows.map((row) => row.seat_id)
      const middle = [1, 2, 3].flatMap((row) => Array.from({ length: 25 }, (_, n) => `Main-${row}-${n + 13}`)).sort()
      expect(sold).toEqual(middle)
      expect(await seats(stadium.sale)).toMatchObject({ sold: 0, seats_blocked: 144, seats_free: 6, seats_held: 0, tickets: 0, held: 0 })
      for (const id of stadium.pairs) expect(await seats(id)).toMatchObject({ capacity: 6, seats: 0, sold: 0 })

      // A best available of 2 on the half-sold stadium: two free seats side by side of the front row.
      const auth = { authorization: `Basic ${Buffer.from(`${seed.sellerId}:${seed.apiKey}`).toString('base64')}` }
      const hold = await bench.inject({
        method: 'POST',
        url: '/stf/v1/baskets',
        headers: auth,
        payload: { items: [{ inventory_id: stadium.holds, quantity: 2 }] },
      })
      expect(hold.statusCode).toBe(201)
      const picked = (hold.json() as { items: { seats: { row: string; number: string }[] }[] }).items[0]!.seats
      expect(picked.map((seat) => seat.row)).toEqual(['1', '1'])
      const numbers = picked.map((seat) => Number(seat.number)).sort((a, b) => a - b)
      expect(numbers[1]).toBe(numbers[0]! + 1)
      expect(numbers.every((n) => n < 13 || n > 37)).toBe(true)
    })
  })
})
