import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { findCustomerById, type CustomerRow } from './customers.repo.js'

/** The seller's customer with this id; 404 `not_found` for a missing one or another seller's. */
export async function getCustomer(db: Db, sellerId: string, customerId: string): Promise<CustomerRow> {
  const customer = await findCustomerById(db, sellerId, customerId)
  if (!customer) throw new AppError('not_found')
  return customer
}
