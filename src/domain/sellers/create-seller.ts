import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { issueApiKey } from './issue-api-key.js'
import { DEFAULT_SETTINGS, mergeSettings, settingsColumns, settingsProblems, type SellerSettingsChange } from './seller-settings.js'
import { insertSeller, type SellerRow } from './sellers.repo.js'
import { normalizeStorefrontUrl } from './storefront-url.js'

export type CreateSellerOptions = {
  name: string
  storefrontUrl: string
  contactEmail?: string | null | undefined
  settings?: SellerSettingsChange | undefined
  tokenHmac: Buffer
  actor: AuditActor
}

/** Creates a seller with its first API key, answered in clear this once. */
export const createSeller = async (db: Db, { name, storefrontUrl, contactEmail, settings, tokenHmac, actor }: CreateSellerOptions) => {
  const merged = mergeSettings(DEFAULT_SETTINGS, settings)
  const problems = settingsProblems(merged)
  if (problems.length > 0) throw new AppError('validation_error', { details: problems })
  return db.transaction(async (tx): Promise<{ seller: SellerRow; apiKey: string; apiKeyId: string }> => {
    const seller = await insertSeller(tx, {
      name,
      storefrontUrl: normalizeStorefrontUrl(storefrontUrl),
      contactEmail: contactEmail ?? null,
      ...settingsColumns(merged),
    })
    const { key, apiKey } = await issueApiKey(tx, { sellerId: seller.id, name: 'default', tokenHmac })
    await recordAudit(tx, actor, { action: 'adm.seller.created', target: { type: 'seller', id: seller.id }, sellerId: seller.id })
    await recordAudit(tx, actor, { action: 'adm.api_key.created', target: { type: 'api_key', id: key.id }, sellerId: seller.id })
    return { seller, apiKey, apiKeyId: key.id }
  })
}
