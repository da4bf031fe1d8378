import type { FastifyInstance } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { StaffSessionGrant } from '../domain/staff/start-staff-session.js'
import { loginStaff } from '../domain/staff/login-staff.js'
import { logoutStaff } from '../domain/staff/logout-staff.js'
import { refreshStaffSession } from '../domain/staff/refresh-staff-session.js'
import { authenticateStaff, signStaffAccessToken, staffOf } from './staff-auth.js'
import { ZLoginRequest, ZLoginResponse, ZRefreshTokenRequest, ZRefreshTokenResponse, presentUserInfo } from './auth.schemas.js'
import { PUBLIC, STAFF_SECURITY, TAGS } from './common.schemas.js'
import { iamRateLimits } from './rate-limits.js'
import { errorResponses } from '../platform/http/schemas.js'

function tokenPair(app: FastifyInstance, grant: StaffSessionGrant) {
  const access = signStaffAccessToken(app, { userId: grant.user.id, sessionId: grant.sessionId })
  return { access, body: { access_token: access.token, refresh_token: grant.refreshToken, type: 'Bearer' as const, user: presentUserInfo(grant.user) } }
}

/** `/auth`: login and refresh (no token), logout (Bearer). */
export const authRoutes: FastifyPluginAsyncZod = async (app) => {
  const limits = iamRateLimits(app)

  app.post(
    '/login',
    {
      onRequest: limits.loginPerIp,
      schema: {
        tags: TAGS,
        operationId: 'staffLogin',
        summary: 'User login',
        description:
          '`username` is the email (any case). A wrong email and a wrong password get the same 401 `invalid_credentials`. ' +
          '`expires_at` is the access token expiry in unix seconds. Limited per IP, and per account: past ' +
          '`IAM_LOGIN_FAILURES_PER_ACCOUNT` failed attempts the account is locked for the window (429 with `Retry-After`), ' +
          'except for the right password from an address that signed in to it within 30 days.',
        security: PUBLIC,
        body: ZLoginRequest,
        response: { 200: ZLoginResponse, ...errorResponses(400, 401, 429, 500) },
      },
    },
    async (request, reply) => {
      const { username, password } = request.body
      const grant = await limits.guardLogin(request, username, () =>
        loginStaff(app.db, {
          email: username,
          password,
          tokenHmac: app.secrets.tokenHmac,
          refreshTtlSeconds: app.config.ttl.iamRefresh,
          addressHash: limits.addressHash(request),
        }),
      )
      const { access, body } = tokenPair(app, grant)
      return reply.header('cache-control', 'no-store').send({ ...body, expires_at: access.expiresAt })
    },
  )

  app.post(
    '/refresh',
    {
      onRequest: limits.refreshPerIp,
      schema: {
        tags: TAGS,
        operationId: 'staffRefreshToken',
        summary: 'Refresh token',
        description:
          'Exchanges a refresh token for a new pair. Each refresh token works once: presenting one already used revokes ' +
          'the whole session it descends from (every refresh and access token of that login). Unknown, used, expired or revoked: ' +
          '401 `invalid_token`. `expires_at` is an ISO 8601 instant here.',
        security: PUBLIC,
        body: ZRefreshTokenRequest,
        response: { 200: ZRefreshTokenResponse, ...errorResponses(400, 401, 429, 500) },
      },
    },
    async (request, reply) => {
      const grant = await refreshStaffSession(app.db, {
        refreshToken: request.body.refresh_token,
        tokenHmac: app.secrets.tokenHmac,
        refreshTtlSeconds: app.config.ttl.iamRefresh,
        traceId: request.id,
      })
      const { access, body } = tokenPair(app, grant)
      return reply.header('cache-control', 'no-store').send({ ...body, expires_at: new Date(access.expiresAt * 1000).toISOString() })
    },
  )

  app.post(
    '/logout',
    {
      onRequest: authenticateStaff,
      schema: {
        tags: TAGS,
        operationId: 'staffLogout',
        summary: 'User logout',
        description: 'Revokes every session of the caller: its refresh tokens and access tokens stop working at once.',
        security: STAFF_SECURITY,
        response: { 204: z.undefined().describe('Signed out'), ...errorResponses(401) },
      },
    },
    async (request, reply) => {
      await logoutStaff(app.db, staffOf(request).id)
      return reply.code(204).send()
    },
  )
}
