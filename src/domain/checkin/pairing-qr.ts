import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { qrSvg } from '../orders/ticket-images.js'
import { findDevice } from './devices.repo.js'
import { hashPairingCode, pairingCodeOf, pairingUrlOf } from './pairing-code.js'

export type PairingQrOptions = { deviceId: string; tokenHmac: Buffer; publicBaseUrl: string }

/**
 * A device's `pairing_url` as a QR image (SVG, 4-module quiet zone) for a phone to open the
 * scanner page already pairing. Only while the code can still pair: once used, expired, or the
 * device revoked, 410 `pairing_unavailable` (the back office creates a new device instead). The
 * code is made again from the row (pairing-code.ts) and checked against its stored hash.
 */
export async function pairingQrSvg(db: Db, options: PairingQrOptions): Promise<string> {
  const device = await findDevice(db, options.deviceId)
  if (!device) throw new AppError('not_found')
  const expiresAt = device.pairingExpiresAt
  if (!device.pairingCodeHash || !expiresAt || expiresAt.getTime() <= Date.now() || device.revokedAt) throw new AppError('pairing_unavailable')
  const code = pairingCodeOf(options.tokenHmac, device.id, expiresAt)
  if (hashPairingCode(options.tokenHmac, code) !== device.pairingCodeHash) throw new AppError('pairing_unavailable')
  return qrSvg(pairingUrlOf(options.publicBaseUrl, code))
}
