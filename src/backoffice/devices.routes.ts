import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { ZCreateDeviceRequest, ZCreatedDevice, ZDevice, ZDeviceList } from '../checkin/checkin.schemas.js'
import { createDevice } from '../domain/checkin/create-device.js'
import { findDevice, listDeviceRows } from '../domain/checkin/devices.repo.js'
import { pairingUrlOf } from '../domain/checkin/pairing-code.js'
import { pairingQrSvg } from '../domain/checkin/pairing-qr.js'
import { revokeDevice } from '../domain/checkin/revoke-device.js'
import { toDeviceView } from '../domain/checkin/views.js'
import { findSellerById } from '../domain/sellers/sellers.repo.js'
import { requirePermission } from '../iam/staff-auth.js'
import { AppError } from '../platform/errors.js'
import { errorResponses, pageMeta, ZIdParams, ZPageQuery } from '../platform/http/schemas.js'
import { actorOf } from './staff-actor.js'
import { sendSvg, ZSvgDocument } from '../platform/http/svg-reply.js'

const tags = ['backoffice']
const security = [{ staffBearer: [] }]

/** `/adm/v1` scanner devices: read with `adm.checkin.read`; create and revoke with `adm.checkin.write`. */
export const deviceRoutes: FastifyPluginAsyncZod = async (app) => {
  const read = requirePermission('adm.checkin.read')
  const write = requirePermission('adm.checkin.write')

  app.post(
    '/sellers/:id/devices',
    {
      onRequest: write,
      schema: {
        tags,
        operationId: 'admCreateDevice',
        summary: 'Create a scanner device',
        description:
          'Needs `adm.checkin.write`. Answers the device with its `pairing_code`, shown this once: it works once, within 24 hours, at ' +
          '`POST /chk/v1/pair`, and `pairing_url`, the scanner page that pairs with it when opened (also as a QR: `pairing.svg`). ' +
          '`event_ids` limits the device to those events of the seller (another seller’s: 400).',
        security,
        params: ZIdParams,
        body: ZCreateDeviceRequest,
        response: { 201: ZCreatedDevice, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const created = await createDevice(app.db, {
        sellerId: request.params.id,
        name: request.body.name,
        eventIds: request.body.event_ids,
        tokenHmac: app.secrets.tokenHmac,
        actor: actorOf(request),
      })
      app.warnLoopbackPairing()
      return reply.code(201).send({ ...created, pairing_url: pairingUrlOf(app.publicBaseUrl, created.pairing_code) })
    },
  )

  app.get(
    '/devices/:id/pairing.svg',
    {
      onRequest: write,
      schema: {
        tags,
        operationId: 'admGetDevicePairingQr',
        summary: 'A scanner device’s pairing QR, as SVG',
        description:
          'Needs `adm.checkin.write` (it pairs a device). The device’s `pairing_url` as a QR image (`image/svg+xml`): a phone that ' +
          'scans it opens the scanner page already pairing; the pairing code is printed in text under it, for a phone that cannot scan. Only while the pairing code is unused and valid; after: 410.',
        security,
        params: ZIdParams,
        response: { 200: ZSvgDocument, ...errorResponses(400, 401, 403, 404, 410) },
      },
    },
    async (request, reply) => {
      const svg = await pairingQrSvg(app.db, { deviceId: request.params.id, tokenHmac: app.secrets.tokenHmac, publicBaseUrl: app.publicBaseUrl })
      app.warnLoopbackPairing()
      return sendSvg(reply, svg, 'no-store')
    },
  )

  app.get(
    '/sellers/:id/devices',
    {
      onRequest: read,
      schema: {
        tags,
        operationId: 'admListDevices',
        summary: "List a seller's scanner devices",
        description: 'Needs `adm.checkin.read`. Newest first, revoked ones included.',
        security,
        params: ZIdParams,
        querystring: ZPageQuery,
        response: { 200: ZDeviceList, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      if (!(await findSellerById(app.db, request.params.id))) throw new AppError('not_found')
      const { rows, total } = await listDeviceRows(app.db, request.params.id, request.query)
      return { data: rows.map(toDeviceView), meta: pageMeta(request.query, rows.length, total) }
    },
  )

  app.get(
    '/devices/:id',
    {
      onRequest: read,
      schema: {
        tags,
        operationId: 'admGetDevice',
        summary: 'Read a scanner device',
        description: 'Needs `adm.checkin.read`.',
        security,
        params: ZIdParams,
        response: { 200: ZDevice, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const device = await findDevice(app.db, request.params.id)
      if (!device) throw new AppError('not_found')
      return toDeviceView(device)
    },
  )

  app.post(
    '/devices/:id/revoke',
    {
      onRequest: write,
      schema: {
        tags,
        operationId: 'admRevokeDevice',
        summary: 'Revoke a scanner device',
        description:
          'Needs `adm.checkin.write`. Its token (and an unused pairing code) stops working: every replica refuses it on its next ' +
          'request. Revoking a revoked device answers it again.',
        security,
        params: ZIdParams,
        response: { 200: ZDevice, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => revokeDevice(app.db, { deviceId: request.params.id, actor: actorOf(request) }),
  )
}
