import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { loginCustomer } from '../../src/domain/customers/login-customer.js'
import { registerCustomer } from '../../src/domain/customers/register-customer.js'
import type { CustomerRow } from '../../src/domain/customers/customers.repo.js'
import { signCustomerAccessToken } from '../../src/storefront/customer-auth.js'
import type { TestSeller } from './sellers.js'

export type TestCustomer = {
  customer: CustomerRow
  password: string
  accessToken: string
  refreshToken: string
  /** Headers of a storefront call as this customer: the seller's Basic credentials and the customer token. */
  headers: { authorization: string; 'x-customer-token': string }
}

/**
 * A registered, signed-in customer of `seller`, through the same services as
 * `POST /stf/v1/auth/register` and `/login` (so HTTP rate limits do not get in the way).
 * Its verification email is queued like any other.
 */
export async function createTestCustomer(
  app: FastifyInstance,
  seller: TestSeller,
  overrides: { email?: string; password?: string; firstName?: string; lastName?: string } = {},
): Promise<TestCustomer> {
  const suffix = randomBytes(4).toString('hex')
  const email = overrides.email ?? `customer-${suffix}@example.com`
  const password = overrides.password ?? `pw-${randomBytes(8).toString('hex')}`
  await registerCustomer(app.db, {
    seller: { id: seller.seller.id, name: seller.seller.name, storefrontUrl: seller.seller.storefrontUrl },
    email,
    password,
    firstName: overrides.firstName ?? 'Test',
    lastName: overrides.lastName ?? `Customer ${suffix}`,
    tokenHmac: app.secrets.tokenHmac,
    verifyEmailTtlSeconds: app.config.ttl.stfVerifyEmail,
  })
  const { customer, refreshToken } = await loginCustomer(app.db, {
    sellerId: seller.seller.id,
    email,
    password,
    tokenHmac: app.secrets.tokenHmac,
    refreshTtlSeconds: app.config.ttl.stfRefresh,
  })
  const { token: accessToken } = signCustomerAccessToken(app, { customerId: customer.id, sellerId: seller.seller.id, email: customer.email })
  return { customer, password, accessToken, refreshToken, headers: { ...seller.auth, 'x-customer-token': accessToken } }
}
