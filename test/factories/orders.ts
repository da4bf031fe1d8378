import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { customers } from '../../src/domain/customers/customers.table.js'

/**
 * A customer row of the seller, inserted directly: for service-level tests that need a
 * customer id but no sign-in (no password hashing, so many can be made quickly).
 */
export async function insertTestCustomer(app: FastifyInstance, sellerId: string): Promise<string> {
  const suffix = randomBytes(4).toString('hex')
  const [row] = await app.db
    .insert(customers)
    .values({ sellerId, email: `buyer-${suffix}@example.com`, passwordHash: 'not-a-password-hash', firstName: 'Buyer', lastName: suffix })
    .returning({ id: customers.id })
  return row!.id
}
