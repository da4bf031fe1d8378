import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { lockAffiliateById, updateAffiliateRow } from './affiliates.repo.js'
import { changeSellers } from './seller-changes.js'

export type DeactivateAffiliateOptions = { affiliateId: string; actor: AuditActor }

/**
 * Stops an affiliate (the back office's DELETE): its code is refused by every process from
 * the next request on. The row stays, because baskets and orders keep pointing at it for
 * attribution and reports; `active: true` brings it back. Deactivating twice changes nothing.
 */
export const deactivateAffiliate = (db: Db, { affiliateId, actor }: DeactivateAffiliateOptions) =>
  changeSellers(db, async (tx, announce): Promise<void> => {
    const current = await lockAffiliateById(tx, affiliateId)
    if (!current) throw new AppError('not_found')
    if (!current.active) return
    await updateAffiliateRow(tx, affiliateId, { active: false })
    await recordAudit(tx, actor, { action: 'adm.affiliate.deactivated', target: { type: 'affiliate', id: affiliateId }, sellerId: current.sellerId })
    await announce(current.sellerId)
  })
