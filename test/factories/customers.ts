import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { loginCustomer } from '../../src/domain/customers/login-customer.js'
import { registerCustomer } from '../../src/domain/customers/register-customer.js'
import { confirmEmail, type CustomerRow } from '../../src/domain/customers/customers.repo.js'
import { settingsOf } from '../../src/domain/sellers/seller-settings.js'
import { signCustomerAccessToken } from '../../src/storefront/customer-auth.js'
import type { TestSeller } from './sellers.js'

export type TestCustomer = {
  customer: CustomerRow
  password: string
  /** The session (refresh-token family) its access token names. */
  sessionId: string
  accessToken: string
  refreshToken: string
  /** Headers of a storefront call as this customer: the seller's Basic credentials and the customer token. */
  headers: { authorization: string; 'x-customer-token': string }
}

/**
 * A registered, confirmed, signed-in customer of `seller`, through the same services as
 * `POST /stf/v1/auth/register`, `/verify-email` and `/login` (so HTTP rate limits do not get in
 * the way). Its verification email is queued like any other.
 */
export async function createTestCustomer(
  app: FastifyInstance,
  seller: TestSeller,
  overrides: { email?: string; password?: string; firstName?: string; lastName?: string } = {},
): Promise<TestCustomer> {
  const suffix = randomBytes(4).toString('hex')
  const email = overrides.email ?? `customer-${suffix}@example.com`
  const password = overrides.password ?? `pw-${randomBytes(8).toString('hex')}`
  const registered = await registerCustomer(app.db, {
    seller: { id: seller.seller.id, name: seller.seller.name, storefrontUrl: seller.seller.storefrontUrl, settings: settingsOf(seller.seller) },
    email,
    password,
    firstName: overrides.firstName ?? 'Test',
    lastName: overrides.lastName ?? `Customer ${suffix}`,
    tokenHmac: app.secrets.tokenHmac,
    verifyEmailTtlSeconds: app.config.ttl.stfVerifyEmail,
  })
  await confirmEmail(app.db, registered.id, { clearPassword: false })
  const { customer, sessionId, refreshToken } = await loginCustomer(app.db, {
    sellerId: seller.seller.id,
    email,
    password,
    tokenHmac: app.secrets.tokenHmac,
    refreshTtlSeconds: app.config.ttl.stfRefresh,
    requireVerifiedEmail: true,
  })
  const { token: accessToken } = signCustomerAccessToken(app, { customerId: customer.id, sellerId: seller.seller.id, sessionId, email: customer.email })
  return { customer, password, sessionId, accessToken, refreshToken, headers: { ...seller.auth, 'x-customer-token': accessToken } }
}
