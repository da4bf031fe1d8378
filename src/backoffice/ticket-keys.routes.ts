import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { ZRetiredTicketKey, ZTicketKey, ZTicketKeyList, ZTicketKeyParams } from '../checkin/checkin.schemas.js'
import { retireTicketKey } from '../domain/checkin/retire-ticket-key.js'
import { rotateTicketKey } from '../domain/checkin/rotate-ticket-key.js'
import { toTicketKeyView } from '../domain/checkin/ticket-key-view.js'
import { pageKeyRows } from '../domain/checkin/ticket-keys.repo.js'
import { findSellerById } from '../domain/sellers/sellers.repo.js'
import { requirePermission } from '../iam/staff-auth.js'
import { AppError } from '../platform/errors.js'
import { errorResponses, pageMeta, ZIdParams, ZPageQuery } from '../platform/http/schemas.js'
import { actorOf } from './staff-actor.js'

const tags = ['backoffice']
const security = [{ staffBearer: [] }]

/** `/adm/v1` the keys that sign a seller's tickets' codes: read with `adm.checkin.read`; rotate and retire with `adm.checkin.write`. */
export const ticketKeyRoutes: FastifyPluginAsyncZod = async (app) => {
  const read = requirePermission('adm.checkin.read')
  const write = requirePermission('adm.checkin.write')

  app.get(
    '/sellers/:id/ticket-keys',
    {
      onRequest: read,
      schema: {
        tags,
        operationId: 'admListTicketKeys',
        summary: "List a seller's ticket signing keys",
        description:
          'Needs `adm.checkin.read`. Oldest first, retired ones included. The private halves are never shown: they are stored sealed ' +
          '(AES-256-GCM under `TICKET_KEYS_SECRET`). A seller without keys gets its first one here.',
        security,
        params: ZIdParams,
        querystring: ZPageQuery,
        response: { 200: ZTicketKeyList, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      if (!(await findSellerById(app.db, request.params.id))) throw new AppError('not_found')
      await app.ticketCodes.ensureKeys(app.db, request.params.id)
      const { rows, total } = await pageKeyRows(app.db, request.params.id, request.query.limit, (request.query.page - 1) * request.query.limit)
      return { data: rows.map(toTicketKeyView), meta: pageMeta(request.query, rows.length, total) }
    },
  )

  app.post(
    '/sellers/:id/ticket-keys/rotate',
    {
      onRequest: write,
      schema: {
        tags,
        operationId: 'admRotateTicketKey',
        summary: 'Rotate the ticket signing key',
        description:
          'Needs `adm.checkin.write`. Answers the new active key: the tickets issued from now on are signed with it. The key it replaces ' +
          'keeps verifying its tickets, whose codes do not change (`active: false` in GET /chk/v1/keys), until it is retired.',
        security,
        params: ZIdParams,
        response: { 201: ZTicketKey, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await rotateTicketKey(app.db, { codes: app.ticketCodes, sellerId: request.params.id, actor: actorOf(request) })),
  )

  app.post(
    '/sellers/:id/ticket-keys/:kid/retire',
    {
      onRequest: write,
      schema: {
        tags,
        operationId: 'admRetireTicketKey',
        summary: 'Retire a ticket signing key',
        description:
          'Needs `adm.checkin.write`. The valid tickets it signed are signed by the active key from now on: their codes change, and the ' +
          'scanners’ ticket feed returns them. The key leaves GET /chk/v1/keys and verifies nothing more; codes it signed are refused ' +
          '`invalid` (the identifier still scans). The active key: 409 `ticket_key_active` (rotate first). A retired key answers again.',
        security,
        params: ZTicketKeyParams,
        response: { 200: ZRetiredTicketKey, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => retireTicketKey(app.db, { codes: app.ticketCodes, sellerId: request.params.id, kid: request.params.kid, actor: actorOf(request) }),
  )
}
