import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { findSellerById } from '../sellers/sellers.repo.js'
import type { TicketCodes } from './ticket-codes.js'
import { toTicketKeyView, type TicketKeyView } from './ticket-key-view.js'
import { announceKeysChanged, deactivateKeyRow, findActiveKeyRow, insertKeyRows } from './ticket-keys.repo.js'

export type RotateTicketKeyOptions = { codes: TicketCodes; sellerId: string; actor: AuditActor }

/**
 * Makes a new active key for the seller: the tickets issued from now on are signed with it.
 * The key it replaces keeps verifying its tickets (`active: false`), whose codes do not change,
 * until it is retired. The active key is locked, so two rotations at once make two keys in turn.
 */
export async function rotateTicketKey(db: Db, options: RotateTicketKeyOptions): Promise<TicketKeyView> {
  const { codes, sellerId } = options
  if (!(await findSellerById(db, sellerId))) throw new AppError('not_found')
  const created = await db.transaction(async (tx) => {
    await codes.ensureKeys(tx, sellerId)
    const previous = (await findActiveKeyRow(tx, sellerId, true))!
    await deactivateKeyRow(tx, previous.id)
    const [key] = await insertKeyRows(tx, [codes.newKeyRow(sellerId)])
    await announceKeysChanged(tx, sellerId)
    await recordAudit(tx, options.actor, {
      action: 'adm.ticket_key.rotated',
      target: { type: 'ticket_key', id: key!.id },
      sellerId,
      data: { kid: key!.kid, previous_kid: previous.kid },
    })
    return key!
  })
  codes.forget(sellerId)
  return toTicketKeyView(created)
}
