import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordWebhookEvents } from '../webhooks/webhook-events.js'
import { markTicketsChangedQuery } from './list-tickets.repo.js'
import type { DeviceContext } from './scan-tickets.js'
import { annulScanRow, lockOwnScan } from './scans.repo.js'
import { toCheckinView, type CheckinView } from './views.js'

/** How long a device may take back its own scan (one made by mistake). */
export const ANNUL_WITHIN_MS = 15 * 60 * 1000

/**
 * Undoes a device's own successful scan on a list, found by its nonce, within 15 minutes of it
 * being recorded: it stays in the history with `annulled_at` and no longer counts, the feed
 * returns its ticket, and `ticket.checkin_annulled` is sent. Annulling it again answers it again
 * and sends nothing; anything else (another device's scan, a refused one, too late): 404.
 */
export const annulScan = (db: Db, device: DeviceContext, options: { listId: string; nonce: string }) =>
  db.transaction(async (tx): Promise<CheckinView> => {
    const found = await lockOwnScan(tx, device.id, options.listId, options.nonce)
    if (!found || Date.now() - found.scan.createdAt.getTime() > ANNUL_WITHIN_MS) throw new AppError('not_found')
    if (found.scan.annulledAt) return toCheckinView(found.scan)
    const annulled = await annulScanRow(tx, found.scan.id)
    if (annulled.ticketId && found.orderId) {
      await tx.execute(markTicketsChangedQuery([annulled.ticketId]))
      await recordWebhookEvents(tx, device.sellerId, [
        {
          type: 'ticket.checkin_annulled',
          data: { identifier: annulled.identifier, order_id: found.orderId, list_id: annulled.listId, device_id: device.id, checkin_id: annulled.id },
          orderingKey: found.orderId,
        },
      ])
    }
    return toCheckinView(annulled)
  })
