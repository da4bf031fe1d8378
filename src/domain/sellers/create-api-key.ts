import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import type { ApiKeyRow } from './api-keys.repo.js'
import { issueApiKey } from './issue-api-key.js'
import { changeSellers } from './seller-changes.js'
import { lockSellerById } from './sellers.repo.js'

export type CreateApiKeyOptions = { sellerId: string; name?: string | null | undefined; tokenHmac: Buffer; actor: AuditActor }

/** Issues one more API key to a seller; the key is answered in clear this once. */
export const createApiKey = (db: Db, { sellerId, name, tokenHmac, actor }: CreateApiKeyOptions) =>
  changeSellers(db, async (tx, announce): Promise<{ key: ApiKeyRow; apiKey: string }> => {
    // Locked so that a seller being changed at the same time gets its key after, not beside, the change.
    if (!(await lockSellerById(tx, sellerId))) throw new AppError('not_found')
    const issued = await issueApiKey(tx, { sellerId, name: name ?? null, tokenHmac })
    await recordAudit(tx, actor, { action: 'adm.api_key.created', target: { type: 'api_key', id: issued.key.id }, sellerId })
    await announce(sellerId)
    return issued
  })
