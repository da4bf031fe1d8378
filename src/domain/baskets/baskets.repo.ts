import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import type { InventoryState, Seat, TakenInventory } from '../inventory/inventory.repo.js'
import { inventories, type InventoryVariant } from '../catalog/inventories.table.js'
import { affiliates } from '../sellers/affiliates.table.js'
import { basketItems, baskets } from './baskets.table.js'
import { findVariant, itemKey } from './variants.js'
import { preparedOn } from '../../platform/db/prepared.js'

export type BasketRow = typeof baskets.$inferSelect

/** A basket with what every answer about it needs: the affiliate's code and the database clock. */
export type BasketState = BasketRow & { affiliateCode: string | null; expired: boolean; now: Date }

const basketState = {
  basket: baskets,
  affiliateCode: affiliates.code,
  expired: sql<boolean>`${baskets.expiresAt} <= now()`,
  // The database's clock, so that expiry and coupon windows are judged by one clock.
  nowMs: sql<number>`(extract(epoch from now()) * 1000)::float8`.mapWith(Number),
}

const toState = (row: { basket: BasketRow; affiliateCode: string | null; expired: boolean; nowMs: number }): BasketState => ({
  ...row.basket,
  affiliateCode: row.affiliateCode,
  expired: Boolean(row.expired),
  now: new Date(row.nowMs),
})

/** A seller's basket, without locking. */
export async function findBasket(db: Db, sellerId: string, basketId: string): Promise<BasketState | undefined> {
  const [row] = await db
    .select(basketState)
    .from(baskets)
    .leftJoin(affiliates, eq(affiliates.id, baskets.affiliateId))
    .where(and(eq(baskets.id, basketId), eq(baskets.sellerId, sellerId)))
  return row && toState(row)
}

/** A seller's basket, locked for the rest of the transaction: changes to one basket run one at a time. */
export async function lockBasket(db: Db, sellerId: string, basketId: string): Promise<BasketState | undefined> {
  return basketLocked(await lockBasketQuery(db, sellerId, basketId).execute())
}

/** The statement of `lockBasket`, to send with others (`inOrder`); `basketLocked` reads its answer. */
export const lockBasketQuery = (db: Db, sellerId: string, basketId: string) => {
  const statement = preparedOn(db, LOCK_BASKET, prepareLockBasket)
  return { execute: () => statement.execute({ sellerId, basketId }) }
}

const LOCK_BASKET = Symbol('lock basket')
const prepareLockBasket = (db: Db) =>
  db
    .select(basketState)
    .from(baskets)
    .leftJoin(affiliates, eq(affiliates.id, baskets.affiliateId))
    .where(and(eq(baskets.id, sql.placeholder('basketId')), eq(baskets.sellerId, sql.placeholder('sellerId'))))
    .for('update', { of: baskets })
    .prepare('lock_basket')

export const basketLocked = (rows: Awaited<ReturnType<ReturnType<typeof lockBasketQuery>['execute']>>): BasketState | undefined => rows[0] && toState(rows[0])

/**
 * The items of a basket with their inventory's current name, event, date and prices: `unitPrice`
 * is the variant's own `variantPrice`, else the inventory's. `variantsDigest` fingerprints the inventory's variants
 * as read, for the sale to check under the locks that they did not change (null: no variant).
 * `variantOffered` is false when the item's variant was removed from its inventory since.
 */
export const listBasketLines = async (db: Db, basketId: string) => (await basketLinesQuery(db, basketId).execute()).map(withUnitPrice)

/** The statement of `listBasketLines`, to send with others (`inOrder`); `withUnitPrice` completes its rows. */
export const basketLinesQuery = (db: Db, basketId: string) => {
  const statement = preparedOn(db, BASKET_LINES, prepareBasketLines)
  return { execute: () => statement.execute({ basketId }) }
}

const BASKET_LINES = Symbol('basket lines')
const prepareBasketLines = (db: Db) =>
  db
    .select({
      id: basketItems.id,
      inventoryId: basketItems.inventoryId,
      variant: basketItems.variant,
      quantity: basketItems.quantity,
      couponId: basketItems.couponId,
      position: basketItems.position,
      eventId: inventories.eventId,
      date: inventories.date,
      name: inventories.name,
      inventoryPrice: inventories.price,
      variantPrice: sql<number | null>`(select (v->>'price')::int from jsonb_array_elements(${inventories.variants}) v
                                          where ${basketItems.variant} is not null and v->>'name' = ${basketItems.variant} limit 1)`,
      variantOffered: sql<boolean>`${basketItems.variant} is null or ${inventories.variants} @> jsonb_build_array(jsonb_build_object('name', ${basketItems.variant}::text))`,
      variantsDigest: sql<string | null>`case when ${basketItems.variant} is null then null else md5(${inventories.variants}::text) end`,
      // Reserved seating: the item's seats in its order, as the API writes a Seat (null: unseated).
      seats: sql<Seat[] | null>`seats_json(${inventories.seatingPlanId}, ${basketItems.seats})`,
    })
    .from(basketItems)
    .innerJoin(inventories, eq(inventories.id, basketItems.inventoryId))
    .where(eq(basketItems.basketId, sql.placeholder('basketId')))
    .orderBy(asc(basketItems.position), asc(basketItems.id))
    .prepare('basket_lines')

type LineRow = Awaited<ReturnType<ReturnType<typeof basketLinesQuery>['execute']>>[number]

export const withUnitPrice = (row: LineRow) => ({
  ...row,
  variantPrice: row.variantPrice === null ? null : Number(row.variantPrice),
  unitPrice: Number(row.variantPrice ?? row.inventoryPrice),
})

export type BasketLine = ReturnType<typeof withUnitPrice>

/**
 * Extends the hold. Only in a transaction that also runs `holdTickets` over every item of the
 * basket: the renewed hold is valid only because that check passed under the inventory locks.
 */
export const renewBasket = async (db: Db, basketId: string, ttlSeconds: number, changes: Partial<Pick<BasketRow, 'couponId' | 'customerId'>> = {}) =>
  (
    await db
      .update(baskets)
      .set({ ...changes, expiresAt: sql`now() + make_interval(secs => ${ttlSeconds})`, updatedAt: sql`now()` })
      .where(eq(baskets.id, basketId))
      .returning()
  )[0]!

type ItemRow = typeof basketItems.$inferSelect

/** The statement opening a basket until now + `ttlSeconds`, to send with others (`inOrder`); answers its row. */
export const insertBasketQuery = (
  db: Db,
  basket: { id: string; sellerId: string; affiliateId: string | null; customerId: string | null; ttlSeconds: number },
) => {
  const statement = preparedOn(db, INSERT_BASKET, prepareInsertBasket)
  return { execute: async () => (await statement.execute(basket))[0]! }
}

const INSERT_BASKET = Symbol('insert basket')
const prepareInsertBasket = (db: Db) =>
  db
    .insert(baskets)
    .values({
      id: sql.placeholder('id'),
      sellerId: sql.placeholder('sellerId'),
      affiliateId: sql.placeholder('affiliateId'),
      customerId: sql.placeholder('customerId'),
      expiresAt: sql`now() + make_interval(secs => ${sql.placeholder('ttlSeconds')})`,
    })
    .returning()
    .prepare('insert_basket')

/**
 * The baskets written (and kept) by a grouped hold, each with its items in their order, read after
 * the group's take in the same transaction (`after`): a refused basket is gone by then.
 */
export const groupBasketsQuery = (db: Db, basketIds: readonly string[]) => ({
  execute: async () => {
    // Both issued now (`execute`, not awaited builders): they must leave before the COMMIT.
    const reading = [
      db
        .select()
        .from(baskets)
        .where(inArray(baskets.id, [...basketIds]))
        .execute(),
      db
        .select()
        .from(basketItems)
        .where(inArray(basketItems.basketId, [...basketIds]))
        .orderBy(asc(basketItems.position))
        .execute(),
    ] as const
    const [rows, items] = await Promise.all(reading)
    return new Map(rows.map((basket) => [basket.id, { basket, items: items.filter((item) => item.basketId === basket.id) }]))
  },
})

/** The inventories a seller's basket holds items of (none: no such basket of this seller, or an empty one). */
export async function basketInventoryIds(db: Db, sellerId: string, basketId: string): Promise<string[]> {
  const rows = await db
    .selectDistinct({ id: basketItems.inventoryId })
    .from(basketItems)
    .innerJoin(baskets, eq(baskets.id, basketItems.basketId))
    .where(and(eq(basketItems.basketId, basketId), eq(baskets.sellerId, sellerId)))
  return rows.map((row) => row.id)
}

/** The statement marking a basket checked out by its customer, to send with others (`inOrder`). */
export const checkOutBasketQuery = (db: Db, basketId: string, customerId: string | null) => {
  const statement = preparedOn(db, CHECK_OUT_BASKET, prepareCheckOutBasket)
  return { execute: () => statement.execute({ basketId, customerId }) }
}

const CHECK_OUT_BASKET = Symbol('check out basket')
const prepareCheckOutBasket = (db: Db) =>
  db
    .update(baskets)
    .set({ status: 'checked_out', customerId: sql`${sql.placeholder('customerId')}`, updatedAt: sql`now()` })
    .where(eq(baskets.id, sql.placeholder('basketId')))
    .prepare('check_out_basket')

/** Writes the quantities of a basket's items, keeping the ids, positions and coupons of those it had. */
export const upsertBasketItems = (db: Db, rows: readonly NewBasketItem[]): Promise<ItemRow[]> => upsertBasketItemsQuery(db, rows).execute()

/** An item to write: what the basket asks for, and where it stands among its items. */
export type NewBasketItem = {
  basketId: string
  inventoryId: string
  variant?: string | null | undefined
  quantity: number
  position: number
  /** Reserved seating: the seats it holds (seat ids), as take_tickets decided them; null or absent: none. */
  seats?: readonly string[] | null | undefined
}

/**
 * The statement of `upsertBasketItems`, to send with others (`inOrder`); with no rows, nothing
 * runs. Built once per connection (`preparedOn`), the items going as one array per column
 * (`unnest`), so that one text serves every basket: new baskets write it at every hold.
 */
export const upsertBasketItemsQuery = (db: Db, rows: readonly NewBasketItem[]): { execute: () => Promise<ItemRow[]> } => {
  if (rows.length === 0) return { execute: () => Promise.resolve([]) }
  const statement = preparedOn(db, UPSERT_BASKET_ITEMS, prepareUpsertBasketItems)
  const values = {
    basketIds: rows.map((row) => row.basketId),
    inventoryIds: rows.map((row) => row.inventoryId),
    variants: rows.map((row) => row.variant ?? null),
    quantities: rows.map((row) => row.quantity),
    positions: rows.map((row) => row.position),
    // One text per item (arrays of arrays must be rectangular): the ids joined, none when unseated.
    seats: rows.map((row) => (row.seats ? JSON.stringify(row.seats) : null)),
  }
  return { execute: () => statement.execute(values) }
}

const UPSERT_BASKET_ITEMS = Symbol('upsert basket items')
// Every column of the table, in its order (an insert from a select names them all); held_until is
// the trigger's to set.
const prepareUpsertBasketItems = (db: Db) =>
  db
    .insert(basketItems)
    .select(
      sql`select gen_random_uuid(), u.basket_id, u.inventory_id, u.variant, u.quantity, null::uuid, u.position, null::timestamptz,
                 case when u.seats is null then null else array(select jsonb_array_elements_text(u.seats::jsonb)) end, now()
            from unnest(${sql.placeholder('basketIds')}::uuid[], ${sql.placeholder('inventoryIds')}::uuid[], ${sql.placeholder('variants')}::text[],
                        ${sql.placeholder('quantities')}::int[], ${sql.placeholder('positions')}::int[], ${sql.placeholder('seats')}::text[])
              as u(basket_id, inventory_id, variant, quantity, position, seats)`,
    )
    .onConflictDoUpdate({
      target: [basketItems.basketId, basketItems.inventoryId, basketItems.variant],
      set: { quantity: sql`excluded.quantity`, seats: sql`excluded.seats` },
    })
    .returning()
    .prepare('upsert_basket_items')

/**
 * Basket lines from item rows, the inventories they hold and the variants of those they buy a
 * variant of (as checked by `checkVariants`), in the order the items were added.
 */
export const toLines = (
  items: ItemRow[],
  inventoryById: ReadonlyMap<string, InventoryState & Partial<Pick<TakenInventory, 'seats'>>>,
  variantsById: ReadonlyMap<string, InventoryVariant[]>,
): BasketLine[] =>
  items
    .map((item): BasketLine => {
      const inventory = inventoryById.get(item.inventoryId)!
      const variant = findVariant(variantsById.get(item.inventoryId) ?? [], item.variant)
      return {
        id: item.id,
        inventoryId: item.inventoryId,
        variant: item.variant,
        quantity: item.quantity,
        couponId: item.couponId,
        position: item.position,
        eventId: inventory.eventId,
        date: inventory.date,
        name: inventory.name,
        inventoryPrice: inventory.price,
        variantPrice: variant?.price ?? null,
        unitPrice: variant?.price ?? inventory.price,
        variantOffered: item.variant === null || variant !== undefined,
        variantsDigest: null,
        seats: inventory.seats?.find((held) => held.variant === item.variant)?.seats ?? null,
      }
    })
    .sort((x, y) => x.position - y.position || (x.id < y.id ? -1 : 1))

/** The key of each line's item (inventory and variant), to find lines by what they buy. */
export const linesByItem = (lines: readonly BasketLine[]) => new Map(lines.map((line) => [itemKey(line.inventoryId, line.variant), line]))
