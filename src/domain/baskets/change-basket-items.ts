import { and, eq, inArray } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { runStatement } from '../../platform/db/transaction-ending-with.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { AffiliateContext } from '../sellers/seller-authenticator.js'
import { lockOpenBasket, MAX_BASKET_ITEMS } from './basket-access.js'
import { loadBasketContents, toBasketView } from './basket-view.js'
import { listBasketLines, renewBasket, toLines, upsertBasketItems } from './baskets.repo.js'
import { basketItems } from './baskets.table.js'
import type { BasketItemInput } from './create-basket.js'
import { freeingTickets } from '../inventory/freeing-tickets.js'
import { precheckTickets, takeTickets } from '../inventory/take-tickets.js'

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
  freeingTickets(db, async (tx, stock) => {
    const { sellerId, basketId } = options
    const basket = await lockOpenBasket(tx, sellerId, basketId, options.affiliate)

    const lines = await listBasketLines(tx, basketId)
    const current = new Map(lines.map((line) => [line.inventoryId, line]))
    const wanted = new Map(lines.map((line) => [line.inventoryId, line.quantity]))
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
    const hold = { sellerId, scope: options.affiliate?.eventIds ?? null, basketId, wanted, added, positions }
    await precheckTickets(tx, hold)
    const contents = await loadBasketContents(tx, basket, { lines })
    const renewed = await renewBasket(tx, basketId, options.ttlSeconds)
    await recordAudit(tx, options.actor, {
      action: 'stf.basket.changed',
      target: { type: 'basket', id: basketId },
      sellerId,
      data: { items: options.items.map((i) => ({ inventory_id: i.inventoryId, quantity: i.quantity })) },
    })

    const locked = await runStatement(tx, takeTickets({ ...hold, sell: false }))
    const removed = lines.filter((line) => !wanted.has(line.inventoryId)).map((line) => line.inventoryId)
    if (removed.length > 0) {
      await tx.delete(basketItems).where(and(eq(basketItems.basketId, basketId), inArray(basketItems.inventoryId, removed)))
    }
    let next = Math.max(-1, ...lines.map((line) => line.position)) + 1
    const rows = await upsertBasketItems(
      tx,
      [...wanted].map(([inventoryId, quantity]) => ({ basketId, inventoryId, quantity, position: current.get(inventoryId)?.position ?? next++ })),
    )
    // What it held before and holds no longer is available again.
    stock.freed(options.items.map((item) => item.inventoryId))
    return toBasketView({ ...renewed, affiliateCode: basket.affiliateCode, expired: false, now: basket.now }, { ...contents, lines: toLines(rows, locked) })
  })
