import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { endingCustomerSessions } from '../sellers/seller-changes.js'
import { endCustomerSessions } from './customer-sessions.js'
import { findCustomerById } from './customers.repo.js'

export type LogoutCustomerOptions = { sellerId: string; customerId: string; actor: AuditActor }

/**
 * Ends every session of the seller's customer: its refresh tokens and the access tokens that
 * name them stop working at once. 404 `not_found` for a customer of another seller.
 * Answers how many refresh tokens were revoked.
 */
export const logoutCustomer = (db: Db, { sellerId, customerId, actor }: LogoutCustomerOptions) =>
  endingCustomerSessions(db, async (tx, announce) => {
    const customer = await findCustomerById(tx, sellerId, customerId)
    if (!customer) throw new AppError('not_found')
    const revoked = await endCustomerSessions(tx, announce, customer)
    await recordAudit(tx, actor, {
      action: 'stf.customer.signed_out',
      target: { type: 'customer', id: customer.id },
      sellerId,
      data: { revoked },
    })
    return revoked
  })
