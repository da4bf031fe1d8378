import { Readable } from 'node:stream'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { createExport, EXPORT_CONTENT_TYPES, exportFile, findExport, readChunks, toExportView } from '../domain/reports/exports.js'
import { requirePermission } from '../iam/staff-auth.js'
import { errorResponses, ZIdParams } from '../platform/http/schemas.js'
import { STAFF_SECURITY as security, TAGS as tags } from './common.schemas.js'
import { ZCreateExport, ZExport } from './exports.schemas.js'

const EXTENSIONS = { csv: 'csv', csv_br: 'csv', json: 'json' } as const

/** `/adm/v1` exports (docs/exports.md): asked for, written in the background, downloaded once done. */
export const exportRoutes: FastifyPluginAsyncZod = async (app) => {
  const read = requirePermission('adm.orders.read')

  app.post(
    '/sellers/:id/exports',
    {
      onRequest: read,
      schema: {
        tags,
        operationId: 'admCreateExport',
        summary: "Export a seller's orders, tickets, check-ins or ledger",
        description:
          'Needs `adm.orders.read`. Answers 202 at once with the Export `running`; it is written in the background: poll ' +
          'GET /exports/{id} until `done` (or hear webhook `export.done`), then download GET /exports/{id}/file. `from`/`to` are ' +
          'dates in the seller’s time zone, `[from, to)`: orders and transactions by creation, tickets by sale, check-ins by scan; ' +
          '`event_id` narrows to one event. At most 2 exports of a seller run at once: a third 409 `export_running`. ' +
          'An unknown seller or event: 404.',
        security,
        params: ZIdParams,
        body: ZCreateExport,
        response: { 202: ZExport, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { type, format, from, to, event_id } = request.body
      const row = await createExport(app.db, { sellerId: request.params.id, type, format, from, to, eventId: event_id })
      // Written after the answer, in this process's background: never in the request.
      app.exports.start(row.id)
      return reply.code(202).send(toExportView(row))
    },
  )

  app.get(
    '/exports/:id',
    {
      onRequest: read,
      schema: {
        tags,
        operationId: 'admGetExport',
        summary: 'An export: its status and progress',
        description: 'Needs `adm.orders.read`. `rows`, `sha256` and `expires_at` once `done`.',
        security,
        params: ZIdParams,
        response: { 200: ZExport, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => toExportView(await findExport(app.db, request.params.id)),
  )

  app.get(
    '/exports/:id/file',
    {
      onRequest: read,
      schema: {
        tags,
        operationId: 'admGetExportFile',
        summary: "An export's file",
        description:
          'Needs `adm.orders.read`. The file, streamed (`text/csv` or `application/json`, as an attachment); its SHA-256 is the ' +
          'Export’s `sha256`. While running: 409 `export_running`; failed: 410 `export_failed`; past `expires_at`: 410 `export_expired`.',
        security,
        params: ZIdParams,
        response: {
          200: z.string().describe('The file').meta({ contentMediaType: 'text/csv' }),
          ...errorResponses(400, 401, 403, 404, 409, 410),
        },
      },
    },
    async (request, reply) => {
      const row = await exportFile(app.db, request.params.id)
      reply
        .type(EXPORT_CONTENT_TYPES[row.format])
        .header('content-disposition', `attachment; filename="${row.type}-${row.id}.${EXTENSIONS[row.format]}"`)
        .header('cache-control', 'private, no-store')
      if (row.bytes !== null) reply.header('content-length', String(row.bytes))
      // A stream goes out as it is, never through the serializer.
      return reply.send(Readable.from(readChunks(app.db, row.id)) as unknown as string)
    },
  )
}
