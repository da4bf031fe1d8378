import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { annulCheckinRow, lockOwnCheckin, markTicketChanged } from './checkins.repo.js'
import type { DeviceContext } from './redeem-scans.js'
import { toCheckinView, type CheckinView } from './views.js'

/** How long a device may take back its own check-in (a scan made by mistake). */
export const ANNUL_WITHIN_MS = 15 * 60 * 1000

/**
 * Undoes a device's own successful scan on a list, found by its nonce, within 15 minutes of it
 * being recorded: it stays in the history with `annulled_at` and no longer counts. Annulling
 * it again answers it again; anything else (another device's scan, a refused one, too late): 404.
 */
export const annulCheckin = (db: Db, device: DeviceContext, options: { listId: string; nonce: string }) =>
  db.transaction(async (tx): Promise<CheckinView> => {
    const checkin = await lockOwnCheckin(tx, device.id, options.listId, options.nonce)
    if (!checkin || Date.now() - checkin.createdAt.getTime() > ANNUL_WITHIN_MS) throw new AppError('not_found')
    if (checkin.annulledAt) return toCheckinView(checkin)
    const annulled = await annulCheckinRow(tx, checkin.id)
    if (annulled.ticketId) await markTicketChanged(tx, annulled.ticketId)
    return toCheckinView(annulled)
  })
