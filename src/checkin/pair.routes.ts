import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { pairDevice } from '../domain/checkin/pair-device.js'
import { addressKey } from '../platform/http/rate-limits.js'
import { errorResponses } from '../platform/http/schemas.js'
import { ZPairRequest, ZPairResponse } from './checkin.schemas.js'

/** `POST /chk/v1/pair`: a device exchanges its pairing code for its token. */
export const pairRoutes: FastifyPluginAsyncZod = async (app) => {
  const attempts = app.limits.define('chk-pair-ip', app.config.chkPairPerIp, 60)

  app.post(
    '/pair',
    {
      // Counted before the body is read: guessing codes costs the guesser, not the database.
      onRequest: async (request) => attempts.hit(addressKey(request.ip)),
      schema: {
        tags: ['checkin'],
        operationId: 'chkPair',
        summary: 'Pair a scanner device',
        description:
          'Exchanges the pairing code staff created the device with for its token, shown this once. The code works once: of two calls ' +
          'with it at the same moment one gets the token. An unknown, used, expired or revoked code: 401 `invalid_token`. ' +
          '`CHK_PAIR_LIMIT_PER_IP` attempts per address per minute (default 10), then 429.',
        security: [],
        body: ZPairRequest,
        response: { 201: ZPairResponse, ...errorResponses(400, 401, 429) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(
        await pairDevice(app.db, {
          pairingCode: request.body.pairing_code,
          hardware: request.body.hardware,
          software: request.body.software,
          tokenHmac: app.secrets.tokenHmac,
          traceId: request.id,
        }),
      ),
  )
}
