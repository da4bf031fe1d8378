import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { changeSellers } from './seller-changes.js'
import { changedSettings, mergeSettings, settingsColumns, settingsOf, settingsProblems, type SellerSettingsChange } from './seller-settings.js'
import { lockSellerById, updateSellerRow, type SellerRow, type SellerStatus } from './sellers.repo.js'
import { normalizeStorefrontUrl } from './storefront-url.js'

export type UpdateSellerOptions = {
  sellerId: string
  name?: string | undefined
  storefrontUrl?: string | undefined
  contactEmail?: string | null | undefined
  /** `disabled` refuses every API key of the seller from the next request on, in every process. */
  status?: SellerStatus | undefined
  /** Only the settings given change (within `payment_minutes`, only the methods given); the result must still be coherent as a whole. */
  settings?: SellerSettingsChange | undefined
  actor: AuditActor
}

/**
 * Changes a seller's name, storefront URL, contact email, status or settings. Storefront processes cache
 * all of these with the seller's credentials, so the change is announced to every process.
 */
export const updateSeller = (db: Db, { sellerId, name, storefrontUrl, contactEmail, status, settings, actor }: UpdateSellerOptions) =>
  changeSellers(db, async (tx, announce): Promise<SellerRow> => {
    const current = await lockSellerById(tx, sellerId)
    if (!current) throw new AppError('not_found')
    const before = settingsOf(current)
    const after = mergeSettings(before, settings)
    const problems = settingsProblems(after)
    if (problems.length > 0) throw new AppError('validation_error', { details: problems })

    const values = {
      ...(name !== undefined && name !== current.name ? { name } : {}),
      ...(storefrontUrl !== undefined && normalizeStorefrontUrl(storefrontUrl) !== current.storefrontUrl
        ? { storefrontUrl: normalizeStorefrontUrl(storefrontUrl) }
        : {}),
      ...(status !== undefined && status !== current.status ? { status } : {}),
      ...(contactEmail !== undefined && contactEmail !== current.contactEmail ? { contactEmail } : {}),
    }
    const changed = changedSettings(before, after)
    const fields = [
      ...(values.name !== undefined ? ['name'] : []),
      ...(values.storefrontUrl !== undefined ? ['storefront_url'] : []),
      ...(values.status !== undefined ? ['status'] : []),
      ...(values.contactEmail !== undefined ? ['contact_email'] : []),
      ...changed.map((key) => `settings.${key}`),
    ]
    if (fields.length === 0) return current

    const updated = await updateSellerRow(tx, sellerId, {
      ...values,
      ...settingsColumns(Object.fromEntries(changed.map((key) => [key, after[key]]))),
    })
    await recordAudit(tx, actor, {
      action: 'adm.seller.updated',
      target: { type: 'seller', id: sellerId },
      sellerId,
      data: { fields, ...(values.status ? { status: values.status } : {}) },
    })
    await announce(sellerId)
    return updated!
  })
