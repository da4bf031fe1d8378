import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { Db } from '../../platform/db/database.js'
import { isUniqueViolation } from '../../platform/db/errors.js'
import { AppError } from '../../platform/errors.js'
import { checkSellerRefs } from '../catalog/seller-refs.js'
import { findSellerById } from '../sellers/sellers.repo.js'
import { couponProblems, type CouponType } from './coupon-rules.js'
import { insertCoupon, type CouponRow } from './coupons.repo.js'

export type CreateCouponOptions = {
  sellerId: string
  /** Unique per seller, case-insensitive. */
  code: string
  type: CouponType
  /** Percent 1..100, or centavos for `fixed`. */
  value: number
  /** Events of the seller it covers; empty or absent: all. */
  eventIds?: string[] | undefined
  /** Inventories of the seller it covers; empty or absent: all. */
  inventoryIds?: string[] | undefined
  startsAt?: Date | null | undefined
  endsAt?: Date | null | undefined
  maxUses?: number | null | undefined
  maxUsesPerCustomer?: number | null | undefined
  /** Centavos the basket subtotal must reach. */
  minSubtotal?: number | null | undefined
  active?: boolean | undefined
  actor: AuditActor
}

export const couponCodeTaken = () => new AppError('already_exists', { message: 'The seller already has a coupon with this code' })

/** Creates a coupon of a seller. */
export const createCoupon = async (db: Db, options: CreateCouponOptions) => {
  const { sellerId, actor } = options
  const problems = couponProblems({
    type: options.type,
    value: options.value,
    startsAt: options.startsAt ?? null,
    endsAt: options.endsAt ?? null,
    maxUses: options.maxUses ?? null,
    uses: 0,
  })
  if (problems.length > 0) throw new AppError('validation_error', { details: problems })
  return db
    .transaction(async (tx): Promise<CouponRow> => {
      if (!(await findSellerById(tx, sellerId))) throw new AppError('not_found')
      const refs = await checkSellerRefs(tx, sellerId, { eventIds: options.eventIds ?? [], inventoryIds: options.inventoryIds ?? [] })
      const coupon = await insertCoupon(tx, {
        sellerId,
        code: options.code,
        type: options.type,
        value: options.value,
        eventIds: refs.eventIds!,
        inventoryIds: refs.inventoryIds!,
        startsAt: options.startsAt ?? null,
        endsAt: options.endsAt ?? null,
        maxUses: options.maxUses ?? null,
        maxUsesPerCustomer: options.maxUsesPerCustomer ?? null,
        minSubtotal: options.minSubtotal ?? null,
        active: options.active ?? true,
      })
      await recordAudit(tx, actor, {
        action: 'adm.coupon.created',
        target: { type: 'coupon', id: coupon.id },
        sellerId,
        data: { code: coupon.code, type: coupon.type, value: coupon.value },
      })
      return coupon
    })
    .catch((error: unknown) => {
      if (isUniqueViolation(error, 'coupons_seller_code_key')) throw couponCodeTaken()
      throw error
    })
}
