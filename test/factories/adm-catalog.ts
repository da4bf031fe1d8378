import { randomBytes } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { basketItems, baskets } from '../../src/domain/baskets/baskets.table.js'
import { createEvent, type CreateEventOptions } from '../../src/domain/catalog/create-event.js'
import { createInventory, type CreateInventoryOptions } from '../../src/domain/catalog/create-inventory.js'
import { inventories } from '../../src/domain/catalog/inventories.table.js'

const system = { type: 'system' as const }

/** An event of a seller through the back-office service; published unless told otherwise. */
export const createTestEvent = (app: FastifyInstance, sellerId: string, overrides: Partial<Omit<CreateEventOptions, 'sellerId' | 'actor'>> = {}) =>
  createEvent(app.db, { sellerId, title: `Event ${randomBytes(3).toString('hex')}`, status: 'published', ...overrides, actor: system })

/** An inventory of an event through the back-office service: 100 tickets at R$ 50,00 in a week. */
export const createTestInventory = (app: FastifyInstance, eventId: string, overrides: Partial<Omit<CreateInventoryOptions, 'eventId' | 'actor'>> = {}) =>
  createInventory(app.db, {
    eventId,
    date: new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10),
    name: 'Inteira',
    price: 5000,
    capacity: 100,
    ...overrides,
    actor: system,
  })

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
