import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { revokeCustomerRefreshTokens } from './customer-tokens.repo.js'
import { findCustomerById } from './customers.repo.js'

export type LogoutCustomerOptions = { sellerId: string; customerId: string; actor: AuditActor }

/**
 * Revokes every refresh token of the seller's customer (all its sessions); access tokens
 * already issued live until they expire. 404 `not_found` for a customer of another seller.
 * Answers how many tokens were revoked.
 */
export const logoutCustomer = (db: Db, { sellerId, customerId, actor }: LogoutCustomerOptions) =>
  db.transaction(async (tx) => {
    const customer = await findCustomerById(tx, sellerId, customerId)
    if (!customer) throw new AppError('not_found')
    const revoked = await revokeCustomerRefreshTokens(tx, customer.id)
    await recordAudit(tx, actor, {
      action: 'stf.customer.signed_out',
      target: { type: 'customer', id: customer.id },
      sellerId,
      data: { revoked },
    })
    return revoked
  })
