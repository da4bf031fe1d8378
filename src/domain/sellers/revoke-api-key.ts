import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { revokeApiKeyRow } from './api-keys.repo.js'
import { changeSellers } from './seller-changes.js'

export type RevokeApiKeyOptions = { sellerId: string; keyId: string; actor: AuditActor }

/** Revokes a seller's API key; every process refuses it from its next request on. */
export const revokeApiKey = (db: Db, { sellerId, keyId, actor }: RevokeApiKeyOptions) =>
  changeSellers(db, async (tx, announce) => {
    const key = await revokeApiKeyRow(tx, sellerId, keyId)
    if (!key) throw new AppError('not_found')
    await recordAudit(tx, actor, { action: 'adm.api_key.revoked', target: { type: 'api_key', id: keyId }, sellerId })
    await announce(sellerId)
    return key
  })
