import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { issueRefreshToken } from '../../src/domain/customers/customer-sessions.js'
import { customers } from '../../src/domain/customers/customers.table.js'
import { signCustomerAccessToken } from '../../src/storefront/customer-auth.js'
import type { TestSeller } from './sellers.js'

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

/**
 * A customer of the seller inserted directly (no argon2 work, so a crowd is quick to make), with
 * a live session and an access token of it: the headers of its storefront calls.
 */
export async function insertSignedInCustomer(app: FastifyInstance, seller: TestSeller): Promise<{ id: string; headers: Record<string, string> }> {
  const id = await insertTestCustomer(app, seller.seller.id)
  const { sessionId } = await issueRefreshToken(app.db, {
    sellerId: seller.seller.id,
    customerId: id,
    tokenHmac: app.secrets.tokenHmac,
    ttlSeconds: app.config.ttl.stfRefresh,
  })
  const { token } = signCustomerAccessToken(app, { customerId: id, sellerId: seller.seller.id, sessionId, email: `${id}@example.com` })
  return { id, headers: { ...seller.auth, 'x-customer-token': token } }
}

/**
 * An order placed the way a storefront places one: a basket of these items opened with the
 * customer's headers, then checked out with `checkout` (a pix order awaiting payment unless told
 * otherwise). Answers the Order as the checkout answered it.
 */
export async function placeTestOrder(
  app: FastifyInstance,
  headers: Record<string, string>,
  items: { inventory_id: string; quantity: number }[],
  checkout: Record<string, unknown> = { payment_method: 'pix', await_payment: true },
) {
  const basket = await app.inject({ method: 'POST', url: '/stf/v1/baskets', headers, payload: { items } })
  if (basket.statusCode !== 201) throw new Error(`basket: ${basket.statusCode} ${basket.body}`)
  const order = await app.inject({ method: 'POST', url: `/stf/v1/baskets/${basket.json().id}/checkout`, headers, payload: checkout })
  if (order.statusCode !== 201) throw new Error(`checkout: ${order.statusCode} ${order.body}`)
  return order.json() as { id: string; status: string; created_at: string; payment_due_at: string | null }
}
