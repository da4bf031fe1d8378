import { and, eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { basketItems, baskets } from '../../src/domain/baskets/baskets.table.js'
import { heldQuantities } from '../../src/domain/baskets/holds.repo.js'
import { createEvent } from '../../src/domain/catalog/create-event.js'
import { lockInventoryById } from '../../src/domain/catalog/inventories.repo.js'
import { listInventories } from '../../src/domain/catalog/list-inventories.js'
import { updateInventory } from '../../src/domain/catalog/update-inventory.js'
import { createAffiliate } from '../../src/domain/sellers/create-affiliate.js'
import { createSeller } from '../../src/domain/sellers/create-seller.js'
import { updateSeller } from '../../src/domain/sellers/update-seller.js'
import type { AuditActor } from '../../src/domain/audit/record-audit.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory, holdTickets, sellTickets } from '../factories/adm-catalog.js'
import { createTestSeller, type TestSeller } from '../factories/sellers.js'

const ctx = useTestApp()
const actor: AuditActor = { type: 'system', traceId: 'test-trace' }
let a: TestSeller

beforeAll(async () => {
  a = await createTestSeller(ctx.app, { name: 'Seller A' })
})

const whoami = (headers: Record<string, string>) => ctx.app.inject({ method: 'GET', url: '/stf/v1/seller', headers })

describe('seller services', () => {
  it('refuses settings that do not hold together, merged with the defaults on create and the current ones on update', async () => {
    await expect(
      createSeller(ctx.app.db, {
        name: 'X',
        storefrontUrl: 'https://x.example.com',
        settings: { interest_free_installments: 13 },
        tokenHmac: ctx.app.secrets.tokenHmac,
        actor,
      }),
    ).rejects.toMatchObject({ code: 'validation_error', details: [{ path: 'settings.interest_free_installments' }] })
    const c = await createTestSeller(ctx.app, { settings: { max_installments: 6, interest_free_installments: 3 } })
    await expect(updateSeller(ctx.app.db, { sellerId: c.seller.id, settings: { max_installments: 2 }, actor })).rejects.toMatchObject({
      code: 'validation_error',
    })
    const updated = await updateSeller(ctx.app.db, { sellerId: c.seller.id, settings: { max_installments: 3 }, actor })
    expect(updated).toMatchObject({ maxInstallments: 3, interestFreeInstallments: 3 })
  })

  it('shows a disabled seller and changed settings to the storefront on its very next request', async () => {
    const c = await createTestSeller(ctx.app)
    expect((await whoami(c.auth)).json().settings.basket_ttl_seconds).toBe(900)
    await updateSeller(ctx.app.db, { sellerId: c.seller.id, settings: { basket_ttl_seconds: 120 }, actor })
    expect((await whoami(c.auth)).json().settings.basket_ttl_seconds).toBe(120)
    await updateSeller(ctx.app.db, { sellerId: c.seller.id, status: 'disabled', actor })
    expect((await whoami(c.auth)).statusCode).toBe(401)
    await updateSeller(ctx.app.db, { sellerId: c.seller.id, status: 'active', actor })
    expect((await whoami(c.auth)).statusCode).toBe(200)
  })

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

describe('affiliate services', () => {
  it('accepts a new affiliate code at once, although the code was just refused and that answer cached', async () => {
    const headers = { ...a.auth, 'x-affiliate-code': 'FRESHCODE' }
    expect((await whoami(headers)).json().code).toBe('invalid_affiliate')
    await createAffiliate(ctx.app.db, { sellerId: a.seller.id, code: 'FreshCode', name: 'Fresh', actor })
    const res = await whoami(headers)
    expect(res.statusCode).toBe(200)
    expect(res.json().affiliate).toEqual({ code: 'FreshCode', name: 'Fresh' })
  })
})

describe('event slugs', () => {
  it('gives events created at the same time with the same title distinct slugs: base, -2, -3...', async () => {
    const c = await createTestSeller(ctx.app)
    const events = await Promise.all(Array.from({ length: 6 }, () => createEvent(ctx.app.db, { sellerId: c.seller.id, title: 'Noite de Jazz', actor })))
    expect(events.map((e) => e.slug).sort()).toEqual(['noite-de-jazz', 'noite-de-jazz-2', 'noite-de-jazz-3', 'noite-de-jazz-4', 'noite-de-jazz-5', 'noite-de-jazz-6'])
  })

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
  it('counts only open, unexpired baskets as held', async () => {
    const event = await createTestEvent(ctx.app, a.seller.id)
    const inventory = await createTestInventory(ctx.app, event.id, { capacity: 50 })
    await holdTickets(ctx.app, a.seller.id, inventory.id, 4)
    await holdTickets(ctx.app, a.seller.id, inventory.id, 5, -1000)
    const checkedOut = await holdTickets(ctx.app, a.seller.id, inventory.id, 6)
    await ctx.app.db.update(baskets).set({ status: 'checked_out' }).where(eq(baskets.id, checkedOut.id))
    await sellTickets(ctx.app, inventory.id, 6)
    const { rows } = await listInventories(ctx.app.db, { eventId: event.id, page: 1, limit: 20 })
    expect(rows[0]).toMatchObject({ capacity: 50, sold: 6, held: 4, available: 40 })
  })

  it('never drops below sold + held while baskets hold tickets concurrently', async () => {
    const event = await createTestEvent(ctx.app, a.seller.id)
    const inventory = await createTestInventory(ctx.app, event.id, { capacity: 40 })
    // A basket service's protocol: lock the inventory, count what is held, then hold.
    const hold = (quantity: number) =>
      ctx.app.db.transaction(async (tx) => {
        const row = (await lockInventoryById(tx, inventory.id))!
        const held = (await heldQuantities(tx, [inventory.id])).get(inventory.id) ?? 0
        if (row.capacity - row.sold - held < quantity) return false
        const [basket] = await tx.insert(baskets).values({ sellerId: a.seller.id, expiresAt: new Date(Date.now() + 600_000) }).returning()
        await tx.insert(basketItems).values({ basketId: basket!.id, inventoryId: inventory.id, quantity })
        return true
      })
    const shrink = (capacity: number) =>
      updateInventory(ctx.app.db, { inventoryId: inventory.id, capacity, actor }).then(
        () => capacity,
        (error: { code?: string }) => {
          expect(error.code).toBe('insufficient_inventory')
          return null
        },
      )
    const outcomes = await Promise.all([
      ...Array.from({ length: 12 }, () => hold(3)),
      ...[30, 25, 20, 15, 10, 5].map((capacity) => shrink(capacity)),
    ])
    const { rows } = await listInventories(ctx.app.db, { eventId: event.id, page: 1, limit: 20 })
    const final = rows[0]!
    const heldCount = outcomes.slice(0, 12).filter(Boolean).length * 3
    expect(final.held).toBe(heldCount)
    expect(final.capacity).toBeGreaterThanOrEqual(final.sold + final.held)
    expect(heldCount).toBeGreaterThan(0)
  })
})
