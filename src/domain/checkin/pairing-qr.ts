import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { qrSvg } from '../orders/ticket-images.js'
import { findDevice } from './devices.repo.js'
import { hashPairingCode, pairingCodeOf, pairingUrlOf } from './pairing-code.js'

export type PairingQrOptions = { deviceId: string; tokenHmac: Buffer; publicBaseUrl: string }

/**
 * The QR with the pairing code in text under it, for a phone that cannot scan it (docs/door.md):
 * the QR's own drawing, on a white picture one band taller. The code is base32 and dashes (no
 * character XML would need escaped), set in a monospace face sized to the QR's width.
 */
export function withCaption(qr: string, caption: string): string {
  const size = Number(/viewBox="0 0 (\d+) \d+"/.exec(qr)?.[1])
  const drawing = qr.slice(qr.indexOf('>') + 1, qr.lastIndexOf('</svg>'))
  const width = size - 8
  const fontSize = Math.round((width / (caption.length * 0.6)) * 100) / 100
  const height = size + Math.ceil(fontSize * 2)
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${height}" shape-rendering="crispEdges">` +
    `<rect width="${size}" height="${height}" fill="#ffffff"/>${drawing}` +
    `<text x="${size / 2}" y="${size + fontSize}" text-anchor="middle" font-family="monospace" font-size="${fontSize}" ` +
    `textLength="${width}" lengthAdjust="spacingAndGlyphs" fill="#000000">${caption}</text></svg>`
  )
}

/**
 * A device's `pairing_url` as a QR image (SVG, 4-module quiet zone) for a phone to open the
 * scanner page already pairing, with the code printed under it. Only while the code can still pair: once used, expired, or the
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
  return withCaption(await qrSvg(pairingUrlOf(options.publicBaseUrl, code)), code)
}
