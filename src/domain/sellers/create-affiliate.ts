import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { Db } from '../../platform/db/database.js'
import { isUniqueViolation } from '../../platform/db/errors.js'
import { AppError } from '../../platform/errors.js'
import { checkSellerRefs } from '../catalog/seller-refs.js'
import { insertAffiliate, insertAffiliateEvents, withEventScopes, type ScopedAffiliate } from './affiliates.repo.js'
import { changeSellers } from './seller-changes.js'
import { lockSellerById } from './sellers.repo.js'

export type CreateAffiliateOptions = {
  sellerId: string
  /** Unique per seller, case-insensitive; sent by storefronts as `X-Affiliate-Code`. */
  code: string
  name: string
  /** The events it may sell, all of the seller's; absent or null: every event, present and future. */
  eventIds?: string[] | null | undefined
  /** Its share of the net it sells, 0..1 (docs/reports.md); absent: 0. */
  commissionRate?: number | undefined
  actor: AuditActor
}

export const affiliateCodeTaken = () => new AppError('already_exists', { message: 'The seller already has an affiliate with this code' })

/** Creates an active affiliate of a seller. */
export const createAffiliate = (db: Db, { sellerId, code, name, eventIds, commissionRate, actor }: CreateAffiliateOptions) =>
  changeSellers(db, async (tx, announce): Promise<ScopedAffiliate> => {
    if (!(await lockSellerById(tx, sellerId))) throw new AppError('not_found')
    const scope = eventIds ? (await checkSellerRefs(tx, sellerId, { eventIds })).eventIds! : null
    const affiliate = await insertAffiliate(tx, {
      sellerId,
      code,
      name,
      allEvents: scope === null,
      ...(commissionRate !== undefined ? { commissionRate: String(commissionRate) } : {}),
    })
    if (scope) await insertAffiliateEvents(tx, affiliate.id, scope)
    await recordAudit(tx, actor, {
      action: 'adm.affiliate.created',
      target: { type: 'affiliate', id: affiliate.id },
      sellerId,
      data: { code, event_ids: scope, commission_rate: commissionRate ?? 0 },
    })
    // Unknown codes are cached by every process: this one must stop being unknown at once.
    await announce(sellerId)
    return (await withEventScopes(tx, [affiliate]))[0]!
  }).catch((error: unknown) => {
    if (isUniqueViolation(error, 'affiliates_seller_code_key')) throw affiliateCodeTaken()
    throw error
  })
