import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import type { TicketCodes } from './ticket-codes.js'
import { toTicketKeyView, type TicketKeyView } from './ticket-key-view.js'
import { announceKeysChanged, findActiveKeyRow, lockKeyRow, resignTickets, retireKeyRow } from './ticket-keys.repo.js'

export type RetireTicketKeyOptions = { codes: TicketCodes; sellerId: string; kid: string; actor: AuditActor }

/**
 * Retires a key the seller no longer signs new tickets with (after a rotation): its valid
 * tickets are signed by the active key from now on, so their codes change and the scanners'
 * feed returns them; the key verifies nothing more and leaves `/chk/v1/keys`. A voided ticket
 * keeps the retired key: no gate admits it anyway. The active key cannot be retired (409
 * `ticket_key_active`): rotate first. Retiring a retired key answers it again.
 *
 * The key's row is locked first: an order writing a ticket signed by it holds it share-locked
 * (the ticket's foreign key), so the retire waits for that order and then re-signs its tickets too.
 */
export async function retireTicketKey(db: Db, options: RetireTicketKeyOptions): Promise<TicketKeyView & { resigned_tickets: number }> {
  const { codes, sellerId } = options
  const result = await db.transaction(async (tx) => {
    const key = await lockKeyRow(tx, sellerId, options.kid)
    if (!key) throw new AppError('not_found')
    if (key.active) throw new AppError('ticket_key_active')
    if (key.retiredAt) return { key, resigned: 0 }
    const active = (await findActiveKeyRow(tx, sellerId))!
    const resigned = await resignTickets(tx, sellerId, key, active.id)
    const retired = await retireKeyRow(tx, key.id)
    await announceKeysChanged(tx, sellerId)
    await recordAudit(tx, options.actor, {
      action: 'adm.ticket_key.retired',
      target: { type: 'ticket_key', id: key.id },
      sellerId,
      data: { kid: key.kid, resigned_tickets: resigned, signed_now_by: active.kid },
    })
    return { key: retired, resigned }
  })
  codes.forget(sellerId)
  return { ...toTicketKeyView(result.key), resigned_tickets: result.resigned }
}
