import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { checkSellerRefs } from '../catalog/seller-refs.js'
import { lockAffiliateById, replaceAffiliateEvents, updateAffiliateRow, withEventScopes, type ScopedAffiliate } from './affiliates.repo.js'
import { changeSellers } from './seller-changes.js'

export type UpdateAffiliateOptions = {
  affiliateId: string
  name?: string | undefined
  /** false: storefronts sending its code get 400 `invalid_affiliate` from their next request on. */
  active?: boolean | undefined
  /** Replaces its scope: events of its seller, or null for every event. */
  eventIds?: string[] | null | undefined
  /** Its share of the net it sells, 0..1 (docs/reports.md): statements from then on use it. */
  commissionRate?: number | undefined
  actor: AuditActor
}

/** Changes an affiliate's name, status or scope; its code stays, as integrations send it. */
export const updateAffiliate = (db: Db, { affiliateId, name, active, eventIds, commissionRate, actor }: UpdateAffiliateOptions) =>
  changeSellers(db, async (tx, announce): Promise<ScopedAffiliate> => {
    const current = await lockAffiliateById(tx, affiliateId)
    if (!current) throw new AppError('not_found')
    const [before] = await withEventScopes(tx, [current])
    const fields: string[] = []
    if (name !== undefined && name !== current.name) fields.push('name')
    if (active !== undefined && active !== current.active) fields.push('active')
    if (commissionRate !== undefined && commissionRate !== Number(current.commissionRate)) fields.push('commission_rate')
    let scope = before!.eventIds
    if (eventIds !== undefined) {
      scope = eventIds === null ? null : (await checkSellerRefs(tx, current.sellerId, { eventIds })).eventIds!
      if (!sameScope(scope, before!.eventIds)) {
        await replaceAffiliateEvents(tx, affiliateId, scope)
        fields.push('event_ids')
      }
    }
    if (fields.length === 0) return before!
    const affiliate = await updateAffiliateRow(tx, affiliateId, {
      ...(name !== undefined ? { name } : {}),
      ...(active !== undefined ? { active } : {}),
      ...(fields.includes('commission_rate') ? { commissionRate: String(commissionRate) } : {}),
    })
    await recordAudit(tx, actor, {
      action: 'adm.affiliate.updated',
      target: { type: 'affiliate', id: affiliateId },
      sellerId: current.sellerId,
      data: {
        fields,
        ...(fields.includes('active') ? { active } : {}),
        ...(fields.includes('event_ids') ? { event_ids: scope } : {}),
        ...(fields.includes('commission_rate') ? { commission_rate: commissionRate } : {}),
      },
    })
    await announce(current.sellerId)
    return (await withEventScopes(tx, [affiliate!]))[0]!
  })

const sameScope = (a: readonly string[] | null, b: readonly string[] | null) =>
  a === null || b === null ? a === b : a.length === b.length && a.every((id) => b.includes(id))
