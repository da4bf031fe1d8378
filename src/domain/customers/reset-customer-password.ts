import { hashOpaqueToken } from '../../platform/auth/opaque-token.js'
import { hashPassword } from '../../platform/auth/passwords.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit } from '../audit/record-audit.js'
import { endingCustomerSessions } from '../sellers/seller-changes.js'
import { customerActor, endCustomerSessions } from './customer-sessions.js'
import { consumeOneTimeToken, findLiveOneTimeToken, voidOneTimeTokens } from './customer-tokens.repo.js'
import { setPasswordHash } from './customers.repo.js'
import { joinGuestOrders } from '../orders/join-guest-orders.js'

export type ResetCustomerPasswordOptions = {
  sellerId: string
  token: string
  password: string
  tokenHmac: Buffer
  traceId?: string
}

/**
 * Consumes a reset token (once, even under concurrent calls) and sets the new password. Every
 * session of the customer ends (refresh tokens revoked, and the access tokens naming them) and
 * other outstanding reset and sign-in links stop working; the password set at registration,
 * perhaps by someone who did not own the inbox, is gone. The link reached the inbox, so the address counts as confirmed.
 * Unknown, used, expired or another seller's token: 401 `invalid_token`.
 */
export async function resetCustomerPassword(db: Db, options: ResetCustomerPasswordOptions): Promise<void> {
  const { sellerId } = options
  const tokenHash = hashOpaqueToken(options.tokenHmac, options.token)
  // A made-up token is refused before any argon2 work, so this route cannot be used to burn CPU.
  if (!(await findLiveOneTimeToken(db, sellerId, 'reset', tokenHash))) throw new AppError('invalid_token')
  const passwordHash = await hashPassword(options.password)
  await endingCustomerSessions(db, async (tx, announce) => {
    const consumed = await consumeOneTimeToken(tx, sellerId, 'reset', tokenHash)
    if (!consumed) throw new AppError('invalid_token')
    // Token rows before the customer row, the order a magic-link sign-in locks them in: a
    // sign-in racing this reset waits for it instead of deadlocking with it.
    await voidOneTimeTokens(tx, consumed.customerId, ['reset', 'magic_link'])
    const customer = await setPasswordHash(tx, consumed.customerId, passwordHash)
    const revoked = await endCustomerSessions(tx, announce, customer)
    await joinGuestOrders(tx, customer, options.traceId)
    await recordAudit(tx, customerActor(customer.id, options.traceId), {
      action: 'stf.customer.password_reset',
      target: { type: 'customer', id: customer.id },
      sellerId,
      data: { revoked_refresh_tokens: revoked },
    })
  })
}
