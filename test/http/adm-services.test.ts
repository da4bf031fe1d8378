import { and, eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import type { AuditActor } from '../../src/domain/audit/record-audit.js'
import { basketItems, baskets } from '../../src/domain/baskets/baskets.table.js'
import { takeTickets } from '../../src/domain/inventory/take-tickets.js'
import { runStatement } from '../../src/platform/db/transaction-ending-with.js'
import { createEvent } from '../../src/domain/catalog/create-event.js'
import { listInventories } from '../../src/domain/catalog/list-inventories.js'
import { updateInventory } from '../../src/domain/catalog/update-inventory.js'
import { updateSeller } from '../../src/domain/sellers/update-seller.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { createTestSeller, type TestSeller } from '../factories/sellers.js'

const ctx = useTestApp()
const actor: AuditActor = { type: 'system', traceId: 'test-trace' }
let a: TestSeller

beforeAll(async () => {
  a = await createTestSeller(ctx.app, { name: 'Seller A' })
})

describe('seller services', () => {
  it('audits what changed, and records nothing for a change to the same values', async () => {
    const c = await createTestSeller(ctx.app)
    await updateSeller(ctx.app.db, { sellerId: c.seller.id, name: 'Renamed', settings: { monthly_rate: 0.01 }, actor })
    await updateSeller(ctx.app.db, { sellerId: c.seller.id, name: 'Renamed', settings: { monthly_rate: 0.01 }, actor })
    const rows = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, c.seller.id), eq(auditLog.action, 'adm.seller.updated')))
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ actorType: 'system', sellerId: c.seller.id, traceId: 'test-trace', data: { fields: ['name', 'settings.monthly_rate'] } })
  })
})

describe('event slugs', () => {
  it('answers 409 already_exists for an explicit slug the seller already has, even when asked concurrently', async () => {
    const c = await createTestSeller(ctx.app)
    const results = await Promise.allSettled(
      Array.from({ length: 4 }, (_, i) => createEvent(ctx.app.db, { sellerId: c.seller.id, title: `T${i}`, slug: 'same-slug', actor })),
    )
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    for (const r of results.filter((r) => r.status === 'rejected')) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'already_exists' })
  })
})

describe('inventory capacity', () => {
  it('never drops below sold + held while baskets hold tickets concurrently', async () => {
    const event = await createTestEvent(ctx.app, a.seller.id)
    const inventory = await createTestInventory(ctx.app, event, { capacity: 40 })
    // A basket as the basket services make one: its items written, then held by the one hold there is.
    const hold = (quantity: number) =>
      ctx.app.db
        .transaction(async (tx) => {
          const [basket] = await tx
            .insert(baskets)
            .values({ sellerId: a.seller.id, expiresAt: new Date(Date.now() + 600_000) })
            .returning()
          await tx.insert(basketItems).values({ basketId: basket!.id, inventoryId: inventory.id, quantity })
          const wanted = new Map([[inventory.id, quantity]])
          await runStatement(
            tx,
            takeTickets({ sellerId: a.seller.id, scope: null, basketId: basket!.id, wanted, added: new Map([[inventory.id, 0]]), sell: false }),
          )
          return true
        })
        .catch((error: { code?: string }) => {
          expect(error.code).toBe('insufficient_inventory')
          return false
        })
    const shrink = (capacity: number) =>
      updateInventory(ctx.app.db, { inventoryId: inventory.id, capacity, actor }).then(
        () => capacity,
        (error: { code?: string }) => {
          expect(error.code).toBe('insufficient_inventory')
          return null
        },
      )
    const outcomes = await Promise.all([...Array.from({ length: 12 }, () => hold(3)), ...[30, 25, 20, 15, 10, 5].map((capacity) => shrink(capacity))])
    const { rows } = await listInventories(ctx.app.db, { eventId: event.id, page: 1, limit: 20 })
    const final = rows[0]!
    const heldCount = outcomes.slice(0, 12).filter(Boolean).length * 3
    expect(final.held).toBe(heldCount)
    expect(final.capacity).toBeGreaterThanOrEqual(final.sold + final.held)
    expect(heldCount).toBeGreaterThan(0)
  })
})
