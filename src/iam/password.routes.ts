import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { requestPasswordReset } from '../domain/staff/request-password-reset.js'
import { resetPassword } from '../domain/staff/reset-password.js'
import { sameAnswerEitherWay } from '../platform/http/answer-floor.js'
import { PUBLIC, TAGS, ZMessage } from './common.schemas.js'
import { RECOVER_MESSAGE, RESET_MESSAGE, ZPasswordRecoverRequest, ZPasswordResetRequest } from './password.schemas.js'
import { iamRateLimits } from './rate-limits.js'
import { errorResponses } from '../platform/http/schemas.js'

/** `/password`: recovery by email and reset with the emailed token. No token needed. */
export const passwordRoutes: FastifyPluginAsyncZod = async (app) => {
  const limits = iamRateLimits(app)

  app.post(
    '/recover',
    {
      onRequest: limits.recoverPerIp,
      preHandler: limits.limitRecoveries,
      schema: {
        tags: TAGS,
        operationId: 'requestStaffPasswordRecovery',
        summary: 'Request password recovery',
        description:
          'Always answers 200 with the same body, and after the same time, whether or not an account uses the email. When one does, it receives a link ' +
          '`IAM_RESET_URL?token=...` that works once, within `IAM_RESET_TOKEN_TTL_SECONDS` (default 30 min); a newer link ' +
          'retires older ones. Limited per IP and per email (429 with `Retry-After`).',
        security: PUBLIC,
        body: ZPasswordRecoverRequest,
        response: { 200: ZMessage, ...errorResponses(400, 429) },
      },
    },
    async (request) =>
      sameAnswerEitherWay(
        () =>
          requestPasswordReset(app.db, {
            email: request.body.email,
            tokenHmac: app.secrets.tokenHmac,
            ttlSeconds: app.config.ttl.iamReset,
            resetUrl: app.config.iamResetUrl,
            traceId: request.id,
          }),
        { message: RECOVER_MESSAGE },
      ),
  )

  app.post(
    '/reset',
    {
      onRequest: limits.resetPerIp,
      schema: {
        tags: TAGS,
        operationId: 'resetStaffPassword',
        summary: 'Reset password',
        description:
          'Sets a new password (8 to 128 characters) with the token of a recovery email. The token works once; unknown, used ' +
          'or expired: 401 `invalid_token`. Every session of the user is revoked.',
        security: PUBLIC,
        body: ZPasswordResetRequest,
        response: { 200: ZMessage, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      await resetPassword(app.db, {
        token: request.body.token,
        password: request.body.password,
        tokenHmac: app.secrets.tokenHmac,
        traceId: request.id,
      })
      return { message: RESET_MESSAGE }
    },
  )
}
