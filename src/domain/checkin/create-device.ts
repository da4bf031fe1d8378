import { randomUUID } from 'node:crypto'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { checkSellerRefs } from '../catalog/seller-refs.js'
import { findSellerById } from '../sellers/sellers.repo.js'
import { insertDevice } from './devices.repo.js'
import { hashPairingCode, PAIRING_TTL_MS, pairingCodeOf } from './pairing-code.js'
import { toDeviceView, type DeviceView } from './views.js'

export type CreateDeviceOptions = {
  sellerId: string
  name: string
  /** The events it may scan, all of the seller's; absent or null: every event. */
  eventIds?: string[] | null | undefined
  tokenHmac: Buffer
  actor: AuditActor
}

/**
 * Creates a scanner device of a seller and its pairing code, which is answered this once (only
 * its keyed hash is kept) and works once, within 24 hours.
 */
export const createDevice = (db: Db, options: CreateDeviceOptions) =>
  db.transaction(async (tx): Promise<DeviceView & { pairing_code: string; pairing_expires_at: string }> => {
    if (!(await findSellerById(tx, options.sellerId))) throw new AppError('not_found')
    const eventIds = options.eventIds ? (await checkSellerRefs(tx, options.sellerId, { eventIds: options.eventIds })).eventIds! : null
    const id = randomUUID()
    const pairingExpiresAt = new Date(Date.now() + PAIRING_TTL_MS)
    const pairingCode = pairingCodeOf(options.tokenHmac, id, pairingExpiresAt)
    const device = await insertDevice(tx, {
      id,
      sellerId: options.sellerId,
      name: options.name,
      eventIds,
      pairingCodeHash: hashPairingCode(options.tokenHmac, pairingCode),
      pairingExpiresAt,
    })
    await recordAudit(tx, options.actor, {
      action: 'adm.device.created',
      target: { type: 'device', id: device.id },
      sellerId: options.sellerId,
      data: { name: options.name, event_ids: eventIds },
    })
    return { ...toDeviceView(device), pairing_code: pairingCode, pairing_expires_at: device.pairingExpiresAt!.toISOString() }
  })
