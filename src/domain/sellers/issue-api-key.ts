import { hashOpaqueToken, newOpaqueToken } from '../../platform/auth/opaque-token.js'
import type { Db } from '../../platform/db/database.js'
import { insertApiKey, type ApiKeyRow } from './api-keys.repo.js'

export const API_KEY_PREFIX = 'sk_'

export type IssueApiKeyOptions = { sellerId: string; name?: string | null; tokenHmac: Buffer }

/**
 * Creates an API key (`sk_` + 32 random bytes, base64url) for a seller and answers it with
 * the key in clear, which is never stored and cannot be shown again.
 */
export async function issueApiKey(db: Db, { sellerId, name, tokenHmac }: IssueApiKeyOptions): Promise<{ key: ApiKeyRow; apiKey: string }> {
  const apiKey = newOpaqueToken(32, API_KEY_PREFIX)
  const key = await insertApiKey(db, {
    sellerId,
    name: name ?? null,
    keyHash: hashOpaqueToken(tokenHmac, apiKey),
    prefix: apiKey.slice(0, 7),
  })
  return { key, apiKey }
}
