import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { revokeDeviceRow } from './devices.repo.js'
import { toDeviceView, type DeviceView } from './views.js'

/**
 * Revokes a device: its token and any unused pairing code stop working. Devices are checked
 * against the database on every request (no process remembers one), so every replica refuses
 * it from its next request on. Revoking a revoked device answers it again.
 */
export const revokeDevice = (db: Db, options: { deviceId: string; actor: AuditActor }) =>
  db.transaction(async (tx): Promise<DeviceView> => {
    const device = await revokeDeviceRow(tx, options.deviceId)
    if (!device) throw new AppError('not_found')
    await recordAudit(tx, options.actor, { action: 'adm.device.revoked', target: { type: 'device', id: device.id }, sellerId: device.sellerId })
    return toDeviceView(device)
  })
