import { and, eq, inArray } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { AffiliateContext } from '../sellers/seller-authenticator.js'
import { assertBasketAccess, assertBasketOpen, MAX_BASKET_ITEMS } from './basket-access.js'
import { loadBasketView } from './basket-view.js'
import { listBasketLines, lockBasket, renewBasket } from './baskets.repo.js'
import { basketItems } from './baskets.table.js'
import type { BasketItemInput } from './create-basket.js'
import { holdTickets } from './hold-tickets.js'

export type ChangeBasketItemsOptions = {
  sellerId: string
  ttlSeconds: number
  affiliate: AffiliateContext | null
  basketId: string
  /** Distinct inventories; quantity 0 removes, 1..20 sets. Unlisted items stay. */
  items: readonly BasketItemInput[]
  actor: AuditActor
}

/**
 * Sets the quantities of the listed inventories and renews the hold: all of it, or nothing
 * (409 insufficient_inventory, the basket unchanged). Removing an item removes its coupon.
 */
export const changeBasketItems = (db: Db, options: ChangeBasketItemsOptions) =>
  db.transaction(async (tx) => {
    const { sellerId, basketId } = options
    const basket = await lockBasket(tx, sellerId, basketId)
    assertBasketAccess(basket, options.affiliate)
    assertBasketOpen(basket)

    const current = new Map((await listBasketLines(tx, basketId)).map((line) => [line.inventoryId, line]))
    const wanted = new Map([...current].map(([id, line]) => [id, line.quantity]))
    const added = new Map<string, number>()
    const positions = new Map<string, number>()
    options.items.forEach((item, n) => {
      positions.set(item.inventoryId, n)
      if (item.quantity === 0) wanted.delete(item.inventoryId)
      else {
        wanted.set(item.inventoryId, item.quantity)
        if (!current.has(item.inventoryId)) added.set(item.inventoryId, n)
      }
    })
    if (wanted.size > MAX_BASKET_ITEMS) {
      throw new AppError('validation_error', { details: [{ path: 'items', message: `a basket holds at most ${MAX_BASKET_ITEMS} inventories` }] })
    }

    await holdTickets(tx, { sellerId, scope: options.affiliate?.eventIds ?? null, basketId, wanted, added, positions })

    const removed = [...current.keys()].filter((id) => !wanted.has(id))
    if (removed.length > 0) {
      await tx.delete(basketItems).where(and(eq(basketItems.basketId, basketId), inArray(basketItems.inventoryId, removed)))
    }
    for (const [inventoryId, quantity] of wanted) {
      const line = current.get(inventoryId)
      if (line && line.quantity !== quantity) await tx.update(basketItems).set({ quantity }).where(eq(basketItems.id, line.id))
    }
    if (added.size > 0) {
      await tx.insert(basketItems).values([...added.keys()].map((inventoryId) => ({ basketId, inventoryId, quantity: wanted.get(inventoryId)! })))
    }
    await renewBasket(tx, basketId, options.ttlSeconds)
    await recordAudit(tx, options.actor, {
      action: 'stf.basket.changed',
      target: { type: 'basket', id: basketId },
      sellerId,
      data: { items: options.items.map((i) => ({ inventory_id: i.inventoryId, quantity: i.quantity })) },
    })
    return loadBasketView(tx, sellerId, basketId)
  })
