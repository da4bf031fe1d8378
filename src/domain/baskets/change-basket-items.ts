import { inArray } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { runStatement } from '../../platform/db/transaction-ending-with.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { AffiliateContext } from '../sellers/seller-authenticator.js'
import { lockOpenBasket, MAX_BASKET_ITEMS } from './basket-access.js'
import { loadBasketContents, toBasketView } from './basket-view.js'
import { linesByItem, listBasketLines, renewBasket, upsertBasketItems } from './baskets.repo.js'
import { basketItems } from './baskets.table.js'
import { auditedItems, seatEntries, type BasketItemInput } from './create-basket.js'
import type { SeatEntry } from '../inventory/inventory.repo.js'
import { checkVariants, firstPositions, itemKey, quantitiesByInventory } from './variants.js'
import { freeingTickets } from '../inventory/freeing-tickets.js'
import { precheckTickets, takeTickets } from '../inventory/take-tickets.js'

export type ChangeBasketItemsOptions = {
  sellerId: string
  ttlSeconds: number
  affiliate: AffiliateContext | null
  basketId: string
  /** Distinct (inventory, variant) pairs; quantity 0 removes, 1..20 sets. Unlisted items stay. */
  items: readonly BasketItemInput[]
  actor: AuditActor
}

/**
 * Sets the quantities of the listed items (an inventory, or one of its variants) and renews the
 * hold: all of it, or nothing (409 insufficient_inventory, the basket unchanged). Variants share
 * their inventory's tickets. Removing an item removes its coupon.
 */
export const changeBasketItems = (db: Db, options: ChangeBasketItemsOptions) =>
  freeingTickets(db, async (tx, stock) => {
    const { sellerId, basketId } = options
    const scope = options.affiliate?.eventIds ?? null
    const basket = await lockOpenBasket(tx, sellerId, basketId, options.affiliate)

    const lines = await listBasketLines(tx, basketId)
    const current = linesByItem(lines)
    const next = new Map([...current].map(([key, line]) => [key, { inventoryId: line.inventoryId, variant: line.variant, quantity: line.quantity }]))
    const held = new Set(lines.map((line) => line.inventoryId))
    const added = new Map<string, number>()
    options.items.forEach((item, n) => {
      const key = itemKey(item.inventoryId, item.variant)
      if (item.quantity === 0) next.delete(key)
      else {
        next.set(key, { inventoryId: item.inventoryId, variant: item.variant ?? null, quantity: item.quantity })
        if (!held.has(item.inventoryId) && !added.has(item.inventoryId)) added.set(item.inventoryId, n)
      }
    })
    if (next.size > MAX_BASKET_ITEMS) {
      throw new AppError('validation_error', { details: [{ path: 'items', message: `a basket holds at most ${MAX_BASKET_ITEMS} items` }] })
    }
    // Seats: those asked for now, and those the basket keeps (checked again, as the counts are).
    const asked = new Set(options.items.filter((item) => item.quantity > 0).map((item) => itemKey(item.inventoryId, item.variant)))
    const seats: SeatEntry[] = [
      ...seatEntries(options.items.filter((item) => item.quantity > 0)),
      ...[...current]
        .filter(([key, line]) => next.has(key) && !asked.has(key) && line.seats !== null)
        .map(([, line]) => ({
          inventoryId: line.inventoryId,
          variant: line.variant,
          quantity: line.quantity,
          seats: line.seats!.map((seat) => seat.id),
          together: true,
          keep: true,
        })),
    ]
    const hold = { sellerId, scope, basketId, wanted: quantitiesByInventory(next.values()), added, positions: firstPositions(options.items), seats }
    if (!options.items.some((item) => item.seats !== undefined)) await precheckTickets(tx, hold)
    await checkVariants(tx, sellerId, scope, options.items)
    const contents = await loadBasketContents(tx, basket, { lines })
    const renewed = await renewBasket(tx, basketId, options.ttlSeconds)
    await recordAudit(tx, options.actor, {
      action: 'stf.basket.changed',
      target: { type: 'basket', id: basketId },
      sellerId,
      data: { items: auditedItems(options.items) },
    })

    const taken = await runStatement(tx, takeTickets({ ...hold, sell: false }))
    const seatsOf = (inventoryId: string, variant: string | null) =>
      taken
        .get(inventoryId)
        ?.seats?.find((held) => held.variant === variant)
        ?.seats.map((seat) => seat.id) ?? null
    const removed = lines.filter((line) => !next.has(itemKey(line.inventoryId, line.variant))).map((line) => line.id)
    if (removed.length > 0) await tx.delete(basketItems).where(inArray(basketItems.id, removed))
    let position = Math.max(-1, ...lines.map((line) => line.position)) + 1
    await upsertBasketItems(
      tx,
      [...next].map(([key, item]) => ({
        basketId,
        ...item,
        position: current.get(key)?.position ?? position++,
        seats: seatsOf(item.inventoryId, item.variant),
      })),
    )
    // What it held before and holds no longer is available again.
    stock.freed(options.items.map((item) => item.inventoryId))
    // Read back under the locks just taken: the prices are those the hold was judged with.
    const changed = await listBasketLines(tx, basketId)
    return toBasketView({ ...renewed, affiliateCode: basket.affiliateCode, expired: false, now: basket.now }, { ...contents, lines: changed })
  })
