import type { AuditActor } from '../audit/record-audit.js'
import { saveChanges } from '../audit/save-changes.js'
import type { Db } from '../../platform/db/database.js'
import { isUniqueViolation } from '../../platform/db/errors.js'
import { AppError } from '../../platform/errors.js'
import { checkSellerRefs } from '../catalog/seller-refs.js'
import { couponProblems } from './coupon-rules.js'
import { lockCouponById, updateCouponRow, type CouponRow, type NewCouponRow } from './coupons.repo.js'
import { couponCodeTaken, type CreateCouponOptions } from './create-coupon.js'

export type UpdateCouponOptions = { couponId: string; actor: AuditActor } & Partial<Omit<CreateCouponOptions, 'sellerId' | 'actor'>>

/**
 * Changes a coupon; its terms are checked as they will be after the change (a new type with
 * the old value, a new end before the old start, a limit below the uses so far: 400).
 * `null` clears a window bound or a limit. Redemptions counted so far stay.
 */
export const updateCoupon = (db: Db, options: UpdateCouponOptions) =>
  db
    .transaction(async (tx): Promise<CouponRow> => {
      const current = await lockCouponById(tx, options.couponId)
      if (!current) throw new AppError('not_found')
      const next = {
        type: options.type ?? current.type,
        value: options.value ?? current.value,
        startsAt: options.startsAt !== undefined ? options.startsAt : current.startsAt,
        endsAt: options.endsAt !== undefined ? options.endsAt : current.endsAt,
        maxUses: options.maxUses !== undefined ? options.maxUses : current.maxUses,
      }
      const problems = couponProblems({ ...next, uses: current.uses })
      if (problems.length > 0) throw new AppError('validation_error', { details: problems })
      const refs = await checkSellerRefs(tx, current.sellerId, { eventIds: options.eventIds, inventoryIds: options.inventoryIds })

      const values: Partial<NewCouponRow> = {}
      const set = <K extends keyof NewCouponRow & keyof CouponRow>(key: K, value: CouponRow[K] | undefined) => {
        if (value !== undefined && !same(value, current[key])) values[key] = value as NewCouponRow[K]
      }
      set('code', options.code)
      set('type', options.type)
      set('value', options.value)
      set('eventIds', refs.eventIds)
      set('inventoryIds', refs.inventoryIds)
      set('startsAt', options.startsAt)
      set('endsAt', options.endsAt)
      set('maxUses', options.maxUses)
      set('maxUsesPerCustomer', options.maxUsesPerCustomer)
      set('minSubtotal', options.minSubtotal)
      set('active', options.active)
      return saveChanges(tx, { current, values, update: updateCouponRow, actor: options.actor, action: 'adm.coupon.updated', target: 'coupon' })
    })
    .catch((error: unknown) => {
      if (isUniqueViolation(error, 'coupons_seller_code_key')) throw couponCodeTaken()
      throw error
    })

const same = (a: unknown, b: unknown) => (a instanceof Date && b instanceof Date ? a.getTime() === b.getTime() : JSON.stringify(a) === JSON.stringify(b))
