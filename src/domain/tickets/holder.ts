import { AppError, type ErrorCode } from '../../platform/errors.js'
import type { TicketHolder, TicketStatus } from '../orders/order-view.js'

/**
 * Who may change a ticket's holder (docs/transfers.md): its buyer (the order's customer, or whoever
 * holds the order's token), at most the seller's `holder_changes_max` times, or staff, as often
 * as needed. Neither after the ticket's first check-in.
 */
export type HolderChanger = 'buyer' | 'staff'

/** A document: 3..20 letters or digits (a CPF's digits, or any id), shown whole only to the back office. */
export const DOCUMENT_PATTERN = /^[A-Za-z0-9]{3,20}$/

/** The facts a change of a ticket's code is judged on, read under the ticket's lock. */
export type TicketCodeState = {
  status: TicketStatus
  /** It entered through a gate: a successful entry, on any list, that was not annulled. */
  checkedIn: boolean
  /** How many times its buyer changed its holder. */
  holderChanges: number
}

/** Why a change of a ticket's holder or code is refused: an error of the catalogue, with what it names. */
export type TicketRefusal = { code: ErrorCode; message: string; details?: Record<string, unknown> }

/** The error a refusal is answered with. */
export const refused = (refusal: TicketRefusal): AppError =>
  new AppError(refusal.code, { message: refusal.message, ...(refusal.details ? { details: refusal.details } : {}) })

/**
 * Whether a ticket can have a new code at all (a holder change, a re-issue): only a `valid` one.
 * A ticket of an order awaiting payment has no code yet (`order_pending`); a voided, expired
 * (its order unpaid in time) or transferred (given away: its identifier is revoked) one is dead
 * at the gates, so it is answered as `ticket_voided`, the refusal of a ticket that no longer counts.
 */
export function codeChangeRefusal(status: TicketStatus): TicketRefusal | null {
  switch (status) {
    case 'valid':
      return null
    case 'pending':
      return { code: 'order_pending', message: 'This order is not paid: its tickets have no codes yet' }
    case 'transferred':
      return { code: 'ticket_voided', message: 'This ticket was given to someone else: its identifier no longer counts', details: { status } }
    case 'expired':
      return { code: 'ticket_voided', message: 'This ticket’s order was not paid in time: the ticket no longer counts', details: { status } }
    case 'voided':
      return { code: 'ticket_voided', message: 'This ticket is voided', details: { status } }
  }
}

/**
 * Whether this holder change may be made (docs/transfers.md): the ticket must be valid
 * (`codeChangeRefusal`), not checked in (409 `holder_locked`), and the buyer below the seller's
 * `holder_changes_max` (409 `holder_locked`); staff are not counted nor limited.
 */
export function holderChangeRefusal(state: TicketCodeState, by: HolderChanger, holderChangesMax: number): TicketRefusal | null {
  const dead = codeChangeRefusal(state.status)
  if (dead) return dead
  if (state.checkedIn) return { code: 'holder_locked', message: 'This ticket was checked in: its holder can no longer change' }
  if (by === 'buyer' && state.holderChanges >= holderChangesMax) {
    return {
      code: 'holder_locked',
      message: `This ticket’s holder was changed the most times allowed (${holderChangesMax})`,
      details: { holder_changes_max: holderChangesMax },
    }
  }
  return null
}

/** Whether `next` names the holder the ticket has already (then a PUT of it changes nothing: no new code, not counted). */
export const sameHolder = (current: TicketHolder, next: TicketHolder): boolean => current.name === next.name && current.document === next.document
