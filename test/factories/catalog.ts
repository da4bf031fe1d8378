import { randomBytes } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { basketItems, baskets } from '../../src/domain/baskets/baskets.table.js'
import { events } from '../../src/domain/catalog/events.table.js'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { coupons } from '../../src/domain/coupons/coupons.table.js'

type EventValues = typeof events.$inferInsert
type InventoryValues = typeof inventories.$inferInsert
type CouponValues = typeof coupons.$inferInsert

/** A date `offset` days from today (UTC), as the API writes dates. */
export const dayFromToday = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)

/**
 * The test data of the catalogue, written as rows: any state a test needs (a past date, a
 * cancelled event) without the back office's rules in the way. Tests of those rules call the API.
 */

/** An event of the seller, published unless told otherwise. */
export async function createTestEvent(app: FastifyInstance, sellerId: string, overrides: Partial<Omit<EventValues, 'sellerId'>> = {}) {
  const suffix = randomBytes(4).toString('hex')
  const [row] = await app.db
    .insert(events)
    .values({
      sellerId,
      title: `Event ${suffix}`,
      slug: `event-${suffix}`,
      description: 'An event',
      status: 'published',
      source: 'test',
      ...overrides,
    })
    .returning()
  return row!
}

/** An inventory of the event (R$ 50,00, 100 tickets, 7 days from now unless told otherwise). */
export async function createTestInventory(
  app: FastifyInstance,
  event: { id: string; sellerId: string },
  overrides: Partial<Omit<InventoryValues, 'sellerId' | 'eventId'>> = {},
) {
  const [row] = await app.db
    .insert(inventories)
    .values({ sellerId: event.sellerId, eventId: event.id, date: dayFromToday(7), name: 'General', price: 5000, capacity: 100, ...overrides })
    .returning()
  return row!
}

/** A coupon of the seller (10 % off everything unless told otherwise). */
export async function createTestCoupon(app: FastifyInstance, sellerId: string, overrides: Partial<Omit<CouponValues, 'sellerId'>> = {}) {
  const [row] = await app.db
    .insert(coupons)
    .values({ sellerId, code: `C${randomBytes(4).toString('hex').toUpperCase()}`, type: 'percent', value: 10, ...overrides })
    .returning()
  return row!
}

/**
 * Holds tickets the way an open basket does: a basket row and its item, written directly.
 * `expiresInMs` below zero makes an expired basket, which holds nothing.
 */
export async function holdTickets(app: FastifyInstance, sellerId: string, inventoryId: string, quantity: number, expiresInMs = 15 * 60_000) {
  const [basket] = await app.db
    .insert(baskets)
    .values({ sellerId, status: 'open', expiresAt: new Date(Date.now() + expiresInMs) })
    .returning()
  await app.db.insert(basketItems).values({ basketId: basket!.id, inventoryId, quantity })
  return basket!
}

/** Records tickets as sold, as a checkout does. */
export const sellTickets = (app: FastifyInstance, inventoryId: string, quantity: number) =>
  app.db
    .update(inventories)
    .set({ sold: sql`${inventories.sold} + ${quantity}` })
    .where(eq(inventories.id, inventoryId))
