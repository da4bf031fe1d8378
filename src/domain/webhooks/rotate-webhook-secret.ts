import { sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { endpointSecret, newSecretSalt } from './signature.js'
import { lockEndpoint, updateEndpointRow, type WebhookEndpointRow } from './webhooks.repo.js'

/** How long a replaced secret keeps signing beside the new one, so that receivers can switch without losing events. */
export const PREVIOUS_SECRET_HOURS = 24

/**
 * Gives an endpoint a new signing secret, shown this once. The one it replaces keeps signing for
 * 24 hours (requests carry a signature by each); a secret replaced before that stops at once.
 */
export const rotateWebhookSecret = (db: Db, { id, secretKey, actor }: { id: string; secretKey: Buffer; actor: AuditActor }) =>
  db.transaction(async (tx): Promise<{ endpoint: WebhookEndpointRow; secret: string }> => {
    const current = await lockEndpoint(tx, id)
    if (!current) throw new AppError('not_found')
    const salt = newSecretSalt()
    const endpoint = await updateEndpointRow(tx, id, {
      secretSalt: salt,
      previousSecretSalt: current.secretSalt,
      previousSecretExpiresAt: sql`now() + make_interval(hours => ${PREVIOUS_SECRET_HOURS})`,
    })
    await recordAudit(tx, actor, { action: 'adm.webhook.secret_rotated', target: { type: 'webhook', id }, sellerId: current.sellerId })
    return { endpoint, secret: endpointSecret(secretKey, salt) }
  })
