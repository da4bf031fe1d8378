import type { FastifyRequest } from 'fastify'
import { findDeviceByTokenHash, touchDevice } from '../domain/checkin/devices.repo.js'
import type { DeviceContext } from '../domain/checkin/scan-tickets.js'
import { hashOpaqueToken } from '../platform/auth/opaque-token.js'
import { AppError } from '../platform/errors.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The paired device of a `/chk/v1` call: the only source of its seller. */
    device: DeviceContext | null
  }
}

/** `Device <token>` (the scheme in any case, RFC 9110): a device token is `dev_` and 43 base64url characters. */
const DEVICE = /^Device (dev_[A-Za-z0-9_-]{43})$/i

const refused = () =>
  new AppError('unauthorized', {
    message: 'A paired device token is required: Authorization: Device <token>',
    headers: { 'www-authenticate': 'Device realm="chk"' },
  })

/**
 * Every `/chk/v1` call but pairing: `Authorization: Device <token>`. The device is read from the
 * database on every request (one indexed lookup), so a revoked device, or one of a disabled
 * seller, is refused from its next request on by every replica. A seller's Basic credentials or
 * a staff Bearer token are not a device token: 401.
 */
export async function authenticateDevice(request: FastifyRequest) {
  const match = DEVICE.exec(request.headers.authorization ?? '')
  if (!match) throw refused()
  const found = await findDeviceByTokenHash(request.server.db, hashOpaqueToken(request.server.secrets.tokenHmac, match[1]!))
  if (!found) throw refused()
  const { device } = found
  request.device = Object.freeze({ id: device.id, sellerId: device.sellerId, eventIds: device.eventIds ? Object.freeze([...device.eventIds]) : null })
  if (!device.lastSeenAt || Date.now() - device.lastSeenAt.getTime() > 60_000) {
    touchDevice(request.server.db, device.id).catch((error: unknown) => request.log.warn({ err: error }, 'could not record device use'))
  }
}

/** The device of a request behind `authenticateDevice`. */
export const deviceOf = (request: FastifyRequest): DeviceContext => request.device!
