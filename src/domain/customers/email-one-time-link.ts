import { hashOpaqueToken, newOpaqueToken } from '../../platform/auth/opaque-token.js'
import type { Db } from '../../platform/db/database.js'
import { enqueueEmail, type EmailMessage } from '../../platform/mail/outbox.repo.js'
import { recordAudit } from '../audit/record-audit.js'
import type { CustomerEmailRequest, EmailRecipient, EmailSeller } from './customer-emails.js'
import { customerActor } from './customer-sessions.js'
import type { OneTimeTokenPurpose } from './customer-tokens.table.js'
import { findLiveOneTimeToken, insertOneTimeToken, voidOneTimeTokens } from './customer-tokens.repo.js'
import { findCustomerByEmail } from './customers.repo.js'

export type EmailOneTimeLinkOptions = CustomerEmailRequest & {
  purpose: OneTimeTokenPurpose
  ttlSeconds: number
  compose: (seller: EmailSeller, to: EmailRecipient, token: string, ttlSeconds: number) => EmailMessage
  auditAction: string
}

/**
 * Emails a single-use link to the seller's customer with this address, if there is one. The
 * caller cannot tell whether there was: the answer is the same, and so is the work as far as
 * it can be. Both paths draw and hash a token, look the customer up, touch the token index and
 * commit a write (the audit row: a request for an unknown address is worth recording too, and
 * a read-only commit would skip the WAL flush and answer measurably faster). Only an account
 * adds the token row and the outbox row, inserts in the same commit. No email ever goes to an
 * address that holds no account.
 *
 * A verification link goes only to an address not confirmed yet, and retires the earlier ones.
 */
export async function emailOneTimeLink(db: Db, options: EmailOneTimeLinkOptions): Promise<void> {
  const { seller, purpose } = options
  const token = newOpaqueToken()
  const tokenHash = hashOpaqueToken(options.tokenHmac, token)
  await db.transaction(async (tx) => {
    const account = await findCustomerByEmail(tx, seller.id, options.email)
    const verifying = purpose === 'verify_email'
    const customer = verifying && account?.emailVerifiedAt ? undefined : account
    if (customer) {
      if (verifying) await voidOneTimeTokens(tx, customer.id, ['verify_email'])
      await insertOneTimeToken(tx, { sellerId: seller.id, customerId: customer.id, purpose, tokenHash, ttlSeconds: options.ttlSeconds })
      await enqueueEmail(tx, options.compose(seller, customer, token, options.ttlSeconds))
    } else {
      // Stands in for the token insert: the same unique-index probe.
      await findLiveOneTimeToken(tx, seller.id, purpose, tokenHash)
    }
    await recordAudit(tx, customer ? customerActor(customer.id, options.traceId) : { type: 'system', traceId: options.traceId ?? null }, {
      action: options.auditAction,
      target: { type: 'customer', id: customer?.id ?? null },
      sellerId: seller.id,
      data: { account: Boolean(customer) },
    })
  })
}
