/**
 * The door's rules (docs/door.md) as a gate applies them without the network, against its copy of
 * the lists' tickets. The server judges again when the scan is uploaded, and its answer wins.
 */

/** A kept ticket's statuses (the feed's) of an order not paid: awaiting payment, or expired unpaid (docs/payments.md). */
const UNPAID = new Set(['pending', 'expired'])

/**
 * Why the gate refuses as `invalid` a ticket it keeps, as the server does (docs/transfers.md), in
 * words the door can act on: `transferred` when its identifier was given to someone else (the
 * feed's `revoked`: the identifier and every code of it are dead; the recipient's ticket has an
 * identifier of its own), `older_code` when a verified code's `n` (absent: 0) is not the ticket's
 * `code_version` modulo 256 (a holder change or a re-issue signed a new code); else null.
 * `known` maps each chosen list's id to its kept ticket of the code's identifier (or nothing);
 * `claims`: a verified code's, null for a typed identifier (which has no version).
 */
export function whyInvalid(known, claims) {
  const kept = Object.values(known).filter(Boolean)
  if (kept.some((ticket) => ticket.status === 'revoked')) return 'transferred'
  if (claims && kept.some((ticket) => (claims.n ?? 0) !== (ticket.code_version ?? 0) % 256)) return 'older_code'
  return null
}

/** Whether a list takes a ticket of this event, inventory and variant. */
const covers = (list, { event_id, inventory_id, variant }) =>
  list.event_id === event_id &&
  (list.inventory_ids === null || list.inventory_ids.includes(inventory_id)) &&
  (list.variants === null || list.variants.includes(variant))

/**
 * Whether an entry falls within the ticket's window. The server computes the window (docs/door.md:
 * from 2 hours before the doors, in the seller's time zone) and the feed gives it as two
 * instants, `entry_opens_at` and `entry_closes_at`: the gate compares its clock with them, and
 * judges as the server does. A ticket kept before the feed gave them: from its date's 00:00 until
 * 06:00 of the next day on this device's clock and time zone (a gate stands where its event is).
 */
export function withinWindow(ticket, now) {
  if (ticket.entry_opens_at && ticket.entry_closes_at) return now >= new Date(ticket.entry_opens_at) && now < new Date(ticket.entry_closes_at)
  const start = new Date(`${ticket.date}T00:00:00`)
  const end = new Date(start)
  end.setDate(end.getDate() + 1)
  end.setHours(6)
  return now >= start && now < end
}

/** What a ticket of an inventory shows and is judged by, from the feed: its date, show times and window. */
export const showOf = ({ date, time = null, doors_time = null, entry_opens_at, entry_closes_at }) => ({
  date,
  time,
  doors_time,
  entry_opens_at,
  entry_closes_at,
})

/**
 * The verdict on one scan: `{status, reason, attention, list_id, ticket}` like the server's
 * RedeemAnswer, with `why` (`whyInvalid`) on an `invalid` one the gate can say more of. `known`
 * maps each chosen list's id to its kept ticket of this identifier (or nothing); `claims` are a
 * verified code's, null for a typed identifier. A verified code of a ticket the copy does not have yet (sold since the last sync) counts on a list that covers it,
 * with the show times and window of its inventory's other tickets (`shows`, by inventory id,
 * when of the same date).
 */
export function judgeScan({ lists, known, claims, type, now, shows = {} }) {
  const refused = (reason, ticket = null, listId = null) => ({ status: 'refused', reason, attention: false, list_id: listId, ticket })
  let found = lists.filter((list) => known[list.id]).map((list) => ({ list, ticket: known[list.id] }))
  // Like the server, before any other rule: a given-away identifier or an older code names no ticket to let in.
  const why = whyInvalid(known, claims)
  if (why) return { ...refused('invalid'), why }
  if (found.length === 0 && claims) {
    const show = shows[claims.inv]
    const ticket = {
      identifier: claims.tid,
      event_id: claims.eid,
      inventory_id: claims.inv,
      ...(show?.date === claims.d ? show : { date: claims.d, time: null, doors_time: null }),
      name: '',
      variant: claims.v,
      seat: claims.s ? { zone: claims.s[0], row: claims.s[1], number: claims.s[2] } : null,
      status: 'valid',
      holder: null,
      checked_in: false,
      inside: false,
      last_checkin_at: null,
      attention: false,
    }
    found = lists.filter((list) => covers(list, ticket)).map((list) => ({ list, ticket }))
    if (found.length === 0) return refused('product', ticket)
  }
  if (found.length === 0) return refused('invalid')
  if (found.length > 1) return refused('ambiguous', found[0].ticket)
  const [{ list, ticket }] = found
  // An expired ticket is voided too: the holder is told it is not paid, as the server tells it.
  if (UNPAID.has(ticket.status)) return refused('unpaid', ticket, list.id)
  if (ticket.status === 'voided') return refused('voided', ticket, list.id)
  // A status this page does not know yet (a newer feed's) lets no one in.
  if (ticket.status !== 'valid') return refused('invalid', ticket, list.id)
  if (type === 'entry') {
    if (!withinWindow(ticket, now)) return refused('invalid_time', ticket, list.id)
    const again = ticket.checked_in && !list.allow_multiple_entries && (ticket.inside || !list.allow_entry_after_exit)
    if (again) return refused('already_redeemed', ticket, list.id)
  }
  const after = { ...ticket, checked_in: ticket.checked_in || type === 'entry', inside: type === 'entry', last_checkin_at: now.toISOString() }
  return { status: 'ok', reason: null, attention: ticket.attention, list_id: list.id, ticket: after }
}
