import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { CustomerEmailRequest } from '../domain/customers/customer-emails.js'
import { customerActor, type CustomerGrant, type SessionTerms } from '../domain/customers/customer-sessions.js'
import { loginCustomer } from '../domain/customers/login-customer.js'
import { logoutCustomer } from '../domain/customers/logout-customer.js'
import { refreshCustomerSession } from '../domain/customers/refresh-customer-session.js'
import { registerCustomer } from '../domain/customers/register-customer.js'
import { requestMagicLink } from '../domain/customers/request-magic-link.js'
import { requestPasswordReset } from '../domain/customers/request-password-reset.js'
import { resendVerificationEmail } from '../domain/customers/resend-verification-email.js'
import { resetCustomerPassword } from '../domain/customers/reset-customer-password.js'
import { signInWithMagicLink } from '../domain/customers/sign-in-with-magic-link.js'
import { verifyCustomerEmail } from '../domain/customers/verify-customer-email.js'
import { AppError } from '../platform/errors.js'
import { sameAnswerEitherWay } from '../platform/http/answer-floor.js'
import { errorResponses } from '../platform/http/schemas.js'
import {
  ZEmailRequest,
  ZLoginRequest,
  ZLogoutQuery,
  ZMessage,
  ZRefreshRequest,
  ZRegisterRequest,
  ZRegisterResponse,
  ZResetPasswordRequest,
  ZTokenPair,
  ZTokenRequest,
  presentCustomer,
} from './auth.schemas.js'
import { optionalCustomer, signCustomerAccessToken } from './customer-auth.js'
import { customerRateLimits } from './customer-rate-limits.js'

const TAGS = ['storefront']
const SELLER = [{ sellerBasic: [] }]

const LIMITED =
  'Limited per client address (`X-End-User-IP` when sent, else the connection, with higher limits) and per email, ' +
  'per seller: 429 `rate_limited` with `Retry-After`.'
const LIMITED_PER_ADDRESS =
  'Limited per client address (`X-End-User-IP` when sent, else the connection, with higher limits), per seller ' + '(429 `rate_limited`).'
const EMAIL_LINK_SENT = 'If an account exists for this email, we have sent it a link.'

/** The answer of login, refresh and magic-link verification (docs/selling.md). */
function tokenPair(app: FastifyInstance, grant: CustomerGrant): z.infer<typeof ZTokenPair> {
  const { customer } = grant
  const access = signCustomerAccessToken(app, {
    customerId: customer.id,
    sellerId: customer.sellerId,
    sessionId: grant.sessionId,
    email: customer.email,
  })
  return {
    access_token: access.token,
    refresh_token: grant.refreshToken,
    token_type: 'Bearer',
    expires_in: access.expiresIn,
    expires_at: access.expiresAt.toISOString(),
    customer: presentCustomer(customer),
  }
}

/** `/stf/v1/auth`: customer accounts and sessions of the seller of the Basic credentials. */
export const authRoutes: FastifyPluginAsyncZod = async (app) => {
  const limits = customerRateLimits(app)
  const { tokenHmac } = app.secrets

  const sessionTerms = (request: FastifyRequest): SessionTerms => ({
    sellerId: request.seller.id,
    refreshTtlSeconds: app.config.ttl.stfRefresh,
    traceId: request.id,
    tokenHmac,
  })

  /**
   * Emails a link through `send` when the seller has a customer with the body's email, and answers the same,
   * in body and time, either way.
   */
  const emailLinkEitherWay = (
    request: Pick<FastifyRequest, 'seller' | 'id'> & { body: { email: string } },
    send: (terms: CustomerEmailRequest) => Promise<void>,
  ) => sameAnswerEitherWay(() => send({ seller: request.seller, email: request.body.email, traceId: request.id, tokenHmac }), { message: EMAIL_LINK_SENT })

  /** Answers the session's token pair, which no cache may keep. */
  const sendTokenPair = (reply: FastifyReply, grant: CustomerGrant) => reply.header('cache-control', 'no-store').send(tokenPair(app, grant))

  app.post(
    '/register',
    {
      onRequest: limits.emailPerIp,
      schema: {
        tags: TAGS,
        operationId: 'registerCustomer',
        summary: 'Register a customer',
        description:
          'Creates a customer of the authenticated seller and emails it a link to `{storefront_url}/verify-email?token=…` ' +
          '(valid `STF_VERIFY_EMAIL_TTL_SECONDS`, 48 h by default). The email is unique per seller whatever its case ' +
          '(409 `email_taken`); another seller may hold the same email. Password: 8 to 128 characters. Does not sign in. ' +
          LIMITED_PER_ADDRESS,
        security: SELLER,
        body: ZRegisterRequest,
        response: { 201: ZRegisterResponse, ...errorResponses(400, 401, 409, 429) },
      },
    },
    async (request, reply) => {
      const customer = await registerCustomer(app.db, {
        seller: request.seller,
        email: request.body.email,
        password: request.body.password,
        firstName: request.body.first_name,
        lastName: request.body.last_name,
        verifyEmailTtlSeconds: app.config.ttl.stfVerifyEmail,
        traceId: request.id,
        tokenHmac,
      })
      return reply.code(201).send({ customer: presentCustomer(customer) })
    },
  )

  app.post(
    '/login',
    {
      onRequest: limits.loginPerIp,
      schema: {
        tags: TAGS,
        operationId: 'loginCustomer',
        summary: 'Sign a customer in',
        description:
          'Exchanges email and password for a token pair. An unknown email, an account without a password and a wrong ' +
          'password get the same 401 `invalid_credentials`, after the same work. With the right password, a customer ' +
          "who never confirmed its email gets 403 `email_not_verified` and no tokens while the seller's " +
          '`login_requires_verified_email` holds (the default): it confirms through the verification email ' +
          '(`/auth/verify-email/resend` sends a new one) or signs in with a magic link. Every attempt counts against the ' +
          `email's limit before the password is checked; a successful one is forgiven. ${LIMITED}`,
        security: SELLER,
        body: ZLoginRequest,
        response: { 200: ZTokenPair, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      const grant = await limits.guardLogin(request, () =>
        loginCustomer(app.db, {
          ...sessionTerms(request),
          email: request.body.email,
          password: request.body.password,
          requireVerifiedEmail: request.seller.settings.login_requires_verified_email,
        }),
      )
      return sendTokenPair(reply, grant)
    },
  )

  app.delete(
    '/logout',
    {
      preHandler: optionalCustomer,
      schema: {
        tags: TAGS,
        operationId: 'logoutCustomer',
        summary: 'Sign a customer out',
        description:
          'Ends every session of the customer `user_id`: its refresh tokens and the access tokens issued with them stop ' +
          'working at once. The storefront backend calls it for its customer: the Basic credentials ' +
          "of the customer's seller suffice, so a customer whose access token has expired can still be signed out. `user_id` " +
          'must be a customer of that seller (404 `not_found` otherwise, as for a missing one). When `X-Customer-Token` is ' +
          'sent too, it must be valid (401 `invalid_token`) and belong to `user_id` (403 `forbidden`). Signing out a customer ' +
          'with no session left also answers 204.',
        security: [{ sellerBasic: [], customerToken: [] }, { sellerBasic: [] }],
        querystring: ZLogoutQuery,
        response: { 204: z.undefined().describe('Signed out'), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { user_id: customerId } = request.query
      const { customer } = request
      if (customer && customer.id !== customerId) {
        throw new AppError('forbidden', { message: 'The customer token belongs to another customer' })
      }
      await logoutCustomer(app.db, {
        sellerId: request.seller.id,
        customerId,
        actor: customer ? customerActor(customer.id, request.id) : { type: 'seller', id: request.seller.id, traceId: request.id },
      })
      return reply.code(204).send()
    },
  )

  app.post(
    '/refresh',
    {
      onRequest: limits.refreshPerIp,
      schema: {
        tags: TAGS,
        operationId: 'refreshCustomerSession',
        summary: 'Refresh a customer session',
        description:
          'Exchanges a refresh token for a new token pair. Each refresh token works once: presenting one already used ' +
          '(a replay, or two concurrent calls with the same token) revokes every refresh token descended from the same ' +
          "sign-in, and the customer signs in again. Unknown, used, revoked, expired or another seller's token: " +
          '401 `invalid_token`. A refresh token lives `STF_REFRESH_TOKEN_TTL_SECONDS` (30 days) from its issue. ' +
          LIMITED_PER_ADDRESS,
        security: SELLER,
        body: ZRefreshRequest,
        response: { 200: ZTokenPair, ...errorResponses(400, 401, 429) },
      },
    },
    async (request, reply) =>
      sendTokenPair(reply, await refreshCustomerSession(app.db, { ...sessionTerms(request), refreshToken: request.body.refresh_token })),
  )

  app.post(
    '/forgot-password',
    {
      onRequest: limits.emailPerIp,
      preHandler: limits.emailPerEmail,
      schema: {
        tags: TAGS,
        operationId: 'requestCustomerPasswordReset',
        summary: 'Email a password-reset link',
        description:
          'When the seller has a customer with this email, emails it a link to `{storefront_url}/reset-password?token=…` ' +
          '(single use, valid `STF_RESET_TOKEN_TTL_SECONDS`, 30 minutes by default). The answer is the same, in status, ' +
          `body and time, whether or not the account exists. ${LIMITED}`,
        security: SELLER,
        body: ZEmailRequest,
        response: { 200: ZMessage, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => emailLinkEitherWay(request, (terms) => requestPasswordReset(app.db, { ...terms, resetTtlSeconds: app.config.ttl.stfReset })),
  )

  app.post(
    '/reset-password',
    {
      onRequest: limits.tokenPerIp,
      schema: {
        tags: TAGS,
        operationId: 'resetCustomerPassword',
        summary: 'Set a new password with a reset token',
        description:
          'Consumes the token of a reset link (single use, also under concurrent calls) and sets the new password ' +
          '(8 to 128 characters). Every session of the customer ends (refresh tokens revoked) and other outstanding reset ' +
          "and sign-in links stop working; the address counts as confirmed. Unknown, used, expired or another seller's " +
          `token: 401 \`invalid_token\`. ${LIMITED_PER_ADDRESS}`,
        security: SELLER,
        body: ZResetPasswordRequest,
        response: { 200: ZMessage, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      await resetCustomerPassword(app.db, {
        sellerId: request.seller.id,
        token: request.body.token,
        password: request.body.password,
        traceId: request.id,
        tokenHmac,
      })
      return { message: 'The password has been changed. Sign in with the new one.' }
    },
  )

  app.post(
    '/magic-link',
    {
      onRequest: limits.emailPerIp,
      preHandler: limits.emailPerEmail,
      schema: {
        tags: TAGS,
        operationId: 'requestMagicLink',
        summary: 'Email a sign-in link',
        description:
          'When the seller has a customer with this email, emails it a link to `{storefront_url}/magic-link?token=…` ' +
          '(single use, valid `STF_MAGIC_LINK_TTL_SECONDS`, 10 minutes by default). The answer is the same, in status, ' +
          `body and time, whether or not the account exists. ${LIMITED}`,
        security: SELLER,
        body: ZEmailRequest,
        response: { 200: ZMessage, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => emailLinkEitherWay(request, (terms) => requestMagicLink(app.db, { ...terms, magicLinkTtlSeconds: app.config.ttl.stfMagicLink })),
  )

  app.post(
    '/magic-link/verify',
    {
      onRequest: limits.tokenPerIp,
      schema: {
        tags: TAGS,
        operationId: 'signInWithMagicLink',
        summary: 'Sign in with a magic-link token',
        description:
          'Consumes the token of a sign-in link (single use, also under concurrent calls) and answers the same token pair ' +
          'as a password login. Opening the link proves control of the inbox, so the address becomes confirmed. Unknown, ' +
          `used, expired or another seller's token: 401 \`invalid_token\`. ${LIMITED_PER_ADDRESS}`,
        security: SELLER,
        body: ZTokenRequest,
        response: { 200: ZTokenPair, ...errorResponses(400, 401, 429) },
      },
    },
    async (request, reply) => sendTokenPair(reply, await signInWithMagicLink(app.db, { ...sessionTerms(request), token: request.body.token })),
  )

  app.post(
    '/verify-email',
    {
      onRequest: limits.tokenPerIp,
      schema: {
        tags: TAGS,
        operationId: 'verifyCustomerEmail',
        summary: 'Confirm an email address',
        description:
          'Consumes the token of the verification email sent at registration (single use) and marks the address ' +
          'confirmed. The first confirmation of an address ends every session opened before it. Unknown, used, ' +
          `expired or another seller's token: 401 \`invalid_token\`. ${LIMITED_PER_ADDRESS}`,
        security: SELLER,
        body: ZTokenRequest,
        response: { 200: ZMessage, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      await verifyCustomerEmail(app.db, { sellerId: request.seller.id, token: request.body.token, traceId: request.id, tokenHmac })
      return { message: 'The email address is confirmed.' }
    },
  )

  app.post(
    '/verify-email/resend',
    {
      onRequest: limits.emailPerIp,
      preHandler: limits.emailPerEmail,
      schema: {
        tags: TAGS,
        operationId: 'resendVerificationEmail',
        summary: 'Email a new verification link',
        description:
          'When the seller has a customer with this email whose address is not confirmed yet, emails it a new link to ' +
          '`{storefront_url}/verify-email?token=…`; the links sent before stop working. The answer is the same, in ' +
          `status, body and time, whether or not such an account exists. ${LIMITED}`,
        security: SELLER,
        body: ZEmailRequest,
        response: { 200: ZMessage, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) =>
      emailLinkEitherWay(request, (terms) => resendVerificationEmail(app.db, { ...terms, verifyEmailTtlSeconds: app.config.ttl.stfVerifyEmail })),
  )
}
