import { count, eq, sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { baskets } from '../../src/domain/baskets/baskets.table.js'
import { idempotencyKeys } from '../../src/domain/idempotency/idempotency-keys.table.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { createTestAffiliate, createTestSeller, type TestSeller, useTwoSellers } from '../factories/sellers.js'

const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx)

const create = (seller: TestSeller, key: string | undefined, items: { inventory_id: string; quantity: number }[], extra: Record<string, string> = {}) =>
  ctx.app.inject({
    method: 'POST',
    url: '/stf/v1/baskets',
    headers: { ...seller.auth, ...(key !== undefined ? { 'idempotency-key': key } : {}), ...extra },
    payload: { items },
  })

const basketsOf = async (sellerId: string) => Number((await ctx.app.db.select({ n: count() }).from(baskets).where(eq(baskets.sellerId, sellerId)))[0]!.n)

async function inventoryOf(seller: TestSeller, capacity = 100) {
  const event = await createTestEvent(ctx.app, seller.seller.id)
  return createTestInventory(ctx.app, event, { capacity })
}

describe('Idempotency-Key on POST /stf/v1/baskets', () => {
  it('replays the first answer, same status and body, for the same key and body', async () => {
    const seller = await createTestSeller(ctx.app)
    const inventory = await inventoryOf(seller)
    const items = [{ inventory_id: inventory.id, quantity: 2 }]
    const first = await create(seller, 'order-123', items)
    expect(first.statusCode).toBe(201)
    expect(first.headers['idempotent-replayed']).toBeUndefined()
    // The basket changes afterwards; the replay is still the first answer.
    await ctx.app.inject({
      method: 'PATCH',
      url: `/stf/v1/baskets/${first.json().id}/items`,
      headers: seller.auth,
      payload: { items: [{ inventory_id: inventory.id, quantity: 5 }] },
    })
    const again = await create(seller, 'order-123', items)
    expect(again.statusCode).toBe(201)
    expect(again.body).toBe(first.body)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(await basketsOf(seller.seller.id)).toBe(1)
  })

  it('answers 409 idempotency_conflict for the same key with another body or another affiliate', async () => {
    const inventory = await inventoryOf(a)
    await createTestAffiliate(ctx.app, a.seller.id, { code: 'IDEMAFF' })
    expect((await create(a, 'conflict-key', [{ inventory_id: inventory.id, quantity: 1 }])).statusCode).toBe(201)
    for (const res of [
      await create(a, 'conflict-key', [{ inventory_id: inventory.id, quantity: 2 }]),
      await create(a, 'conflict-key', [{ inventory_id: inventory.id, quantity: 1 }], { 'x-affiliate-code': 'IDEMAFF' }),
    ]) {
      expect(res.statusCode).toBe(409)
      expect(res.json().code).toBe('idempotency_conflict')
    }
  })

  it('scopes keys per seller', async () => {
    const mine = await inventoryOf(a)
    const theirs = await inventoryOf(b)
    const first = await create(a, 'shared-key', [{ inventory_id: mine.id, quantity: 1 }])
    const second = await create(b, 'shared-key', [{ inventory_id: theirs.id, quantity: 1 }])
    expect(first.statusCode).toBe(201)
    expect(second.statusCode).toBe(201)
    expect(second.json().id).not.toBe(first.json().id)
  })

  it('stores nothing for a refused attempt, so a retry with the same key runs again', async () => {
    const inventory = await inventoryOf(a, 2)
    const blocker = await create(a, undefined, [{ inventory_id: inventory.id, quantity: 2 }])
    const refused = await create(a, 'retry-key', [{ inventory_id: inventory.id, quantity: 1 }])
    expect(refused.statusCode).toBe(409)
    expect(refused.json().code).toBe('insufficient_inventory')
    // Another process's change, as far as this one knows: it hears of the freed tickets by the
    // database's notice, and refuses from its memory of readings until then (bounded wait).
    await ctx.app.db.update(baskets).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(baskets.id, blocker.json().id))
    let retried = await create(a, 'retry-key', [{ inventory_id: inventory.id, quantity: 1 }])
    for (let n = 0; n < 200 && retried.statusCode === 409; n++) {
      expect(retried.json().code).toBe('insufficient_inventory')
      await new Promise((resolve) => setTimeout(resolve, 10))
      retried = await create(a, 'retry-key', [{ inventory_id: inventory.id, quantity: 1 }])
    }
    expect(retried.statusCode).toBe(201)
    expect(retried.headers['idempotent-replayed']).toBeUndefined()
  })

  it('forgets a key after 24 hours', async () => {
    const seller = await createTestSeller(ctx.app)
    const inventory = await inventoryOf(seller)
    const items = [{ inventory_id: inventory.id, quantity: 1 }]
    const first = await create(seller, 'old-key', items)
    await ctx.app.db.update(idempotencyKeys).set({ createdAt: sql`now() - interval '24 hours 1 second'` }).where(eq(idempotencyKeys.sellerId, seller.seller.id))
    const later = await create(seller, 'old-key', [{ inventory_id: inventory.id, quantity: 3 }])
    expect(later.statusCode).toBe(201)
    expect(later.json().id).not.toBe(first.json().id)
    expect(await basketsOf(seller.seller.id)).toBe(2)
  })

  it('refuses a key longer than 255 characters with 400', async () => {
    const inventory = await inventoryOf(a)
    expect((await create(a, 'k'.repeat(255), [{ inventory_id: inventory.id, quantity: 1 }])).statusCode).toBe(201)
    const res = await create(a, 'k'.repeat(256), [{ inventory_id: inventory.id, quantity: 1 }])
    expect(res.statusCode).toBe(400)
    expect(res.json().code).toBe('validation_error')
  })

  it('replays the first answer when the repeat would be refused now (it holds every ticket left), through the same precheck as any basket', async () => {
    const seller = await createTestSeller(ctx.app)
    const inventory = await inventoryOf(seller, 3)
    const items = [{ inventory_id: inventory.id, quantity: 3 }]
    const first = await create(seller, 'all-of-it', items)
    expect(first.statusCode).toBe(201)
    // Sold out for anyone else: the precheck refuses, and remembers it.
    expect((await create(seller, 'someone-else', items)).statusCode).toBe(409)
    const again = await create(seller, 'all-of-it', items)
    expect(again.statusCode).toBe(201)
    expect(again.body).toBe(first.body)
    expect(again.headers['idempotent-replayed']).toBe('true')
    // The same key with another body is still a conflict, refused or not.
    const other = await create(seller, 'all-of-it', [{ inventory_id: inventory.id, quantity: 2 }])
    expect([other.statusCode, other.json().code]).toEqual([409, 'idempotency_conflict'])
    expect(await basketsOf(seller.seller.id)).toBe(1)
  })

  it('creates one basket for 10 concurrent requests with the same key', async () => {
    const seller = await createTestSeller(ctx.app)
    const inventory = await inventoryOf(seller, 5)
    const items = [{ inventory_id: inventory.id, quantity: 3 }]
    const answers = await Promise.all(Array.from({ length: 10 }, () => create(seller, 'burst-key', items)))
    expect(answers.map((r) => r.statusCode)).toEqual(Array(10).fill(201))
    expect(new Set(answers.map((r) => r.body)).size).toBe(1)
    expect(answers.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(9)
    expect(await basketsOf(seller.seller.id)).toBe(1)
  })
})
