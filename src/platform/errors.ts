/**
 * The error catalogue: the only place that lists error codes and their statuses
 * (docs/selling.md, "Requests, errors and the OpenAPI document"). Every failure a client sees is one of these, in one envelope:
 * `{ code, message, trace_id }`, plus `details` for validation failures (a list of fields) and
 * for refusals that name what they refused (an object, docs/selling.md).
 */
export const ERRORS = {
  validation_error: { status: 400, message: 'The request is not valid' },
  invalid_json: { status: 400, message: 'The request body is not valid JSON' },
  /** `X-Affiliate-Code` names no active affiliate of the authenticated seller. */
  invalid_affiliate: { status: 400, message: 'The affiliate code is not valid for this seller' },
  /** Basic or Bearer credentials missing, malformed, wrong, revoked or expired. */
  unauthorized: { status: 401, message: 'Authentication is required' },
  /** Login with a wrong username or password: one answer for both. */
  invalid_credentials: { status: 401, message: 'The email or password is incorrect' },
  /** Refresh, reset, magic-link, verify-email or customer token unknown, used, revoked or expired. */
  invalid_token: { status: 401, message: 'The token is invalid or has expired' },
  forbidden: { status: 403, message: 'You do not have permission to do this' },
  /**
   * Password login (right password) of a customer who never confirmed its email, while the
   * seller's `login_requires_verified_email` holds. No tokens are issued.
   */
  email_not_verified: {
    status: 403,
    message: 'Confirm your email address first: open the link we sent, or sign in with a magic link',
  },
  /** Also the answer for another tenant's object, so that its existence is never revealed. */
  not_found: { status: 404, message: 'The resource was not found' },
  /** A known path asked with a method it does not serve; the `Allow` header lists those it does. */
  method_not_allowed: { status: 405, message: 'This method is not allowed on this path' },
  email_taken: { status: 409, message: 'This email is already in use' },
  already_exists: { status: 409, message: 'A resource with this name or code already exists' },
  insufficient_inventory: { status: 409, message: 'Not enough tickets left' },
  /** An item's inventory is dated before the seller's today, or its event is not on sale; `details.inventory_id`. */
  inventory_unavailable: { status: 409, message: 'This inventory is no longer on sale' },
  idempotency_conflict: {
    status: 409,
    message: 'This Idempotency-Key was already used with a different request',
  },
  /**
   * Checkout, an item change or a coupon change on a basket that was already checked out;
   * `details.order_id` names its order.
   */
  basket_checked_out: { status: 409, message: 'The basket was already checked out' },
  /**
   * Checkout's `expected_total` (what the partner charged) differs from the total computed under
   * the locks; `details: { expected_total, total, basket }`. Nothing is sold and the hold is kept.
   */
  price_changed: { status: 409, message: 'The total changed: it differs from expected_total' },
  /** Joining a waiting list while any ticket of the inventory is on sale to the public (its `available` > 0; docs/waiting-list.md). */
  tickets_available: { status: 409, message: 'Tickets of this inventory are on sale now' },
  /** Joining a waiting list with an email that already waits (or holds an offer) for that inventory. */
  already_waiting: { status: 409, message: 'This email is already on the waiting list' },
  /** The inventory's waiting list is off, its date has passed or its event is not on sale. */
  waiting_list_closed: { status: 409, message: 'The waiting list is closed' },
  /** An offer asked of a waiting-list entry that no longer waits (offered, accepted, ended). */
  entry_not_waiting: { status: 409, message: 'This waiting-list entry is not waiting' },
  /** Retiring the seller's active signing key: rotate first, then retire the key it replaced. */
  ticket_key_active: { status: 409, message: 'This key signs new tickets: rotate to a new key first, then retire this one' },
  /** A named seat is held, sold or blocked (docs/seating.md); `details.seats` lists them. Nothing changes. */
  seat_unavailable: { status: 409, message: 'A seat asked for is not available' },
  /** Best available with `together` finds no block of adjacent free seats; `details.max_together` is the largest left. */
  seats_not_together: { status: 409, message: 'Not enough adjacent seats are free together' },
  /** Named seats would leave a single free seat stranded while the seller's `seating_no_orphans` is on; `details.seats`. */
  seat_orphan: { status: 409, message: 'These seats would leave a single seat stranded' },
  /** Two plans, or two inventories for one category, on one event date; or an inventory's `seating` changed after a hold or sale. */
  seating_conflict: { status: 409, message: 'This seating conflicts with another inventory or with seats already held or sold' },
  /** Deleting a seating plan that an inventory uses. */
  seating_plan_in_use: { status: 409, message: 'An inventory uses this seating plan' },
  /** A payment or the buyer's withdrawal on a cancelled order (docs/payments.md). */
  order_cancelled: { status: 409, message: 'This order is cancelled' },
  /** A payment that is not what the order still owes; `details.outstanding`. Nothing is recorded. */
  amount_mismatch: { status: 409, message: 'The amount is not what the order owes' },
  /** A payment with a new reference on an order already paid. */
  order_paid: { status: 409, message: 'This order is paid already' },
  /** A payment on an expired order whose tickets could not all be taken again: nothing is recorded; return the money at the provider. */
  order_expired: { status: 409, message: 'This order expired unpaid and its tickets are no longer available' },
  /** The tickets' images, or a transfer, of an order awaiting payment (or expired unpaid). */
  order_pending: { status: 409, message: 'This order is not paid: its tickets have no codes' },
  /** Refunds above what was paid, counting refunds not yet done. */
  refund_exceeds_paid: { status: 409, message: 'The refund exceeds what is left of what was paid' },
  /**
   * A refund naming tickets that are voided already (alone, with their cancelled order, or expired unpaid);
   * `details.tickets` lists them. Nothing is refunded: a retried refund never pays the same tickets twice.
   * Also a holder change or a re-issue of a ticket that no longer counts (voided, expired unpaid, or
   * transferred: given away); `details.status` says which (docs/transfers.md).
   */
  ticket_voided: { status: 409, message: 'A ticket named is voided already' },
  /** A holder change after the ticket's first check-in, or beyond the seller's `holder_changes_max` (docs/transfers.md). */
  holder_locked: { status: 409, message: 'This ticket’s holder can no longer be changed' },
  /** A second transfer of a ticket while one is pending (docs/transfers.md). */
  transfer_pending: { status: 409, message: 'This ticket has a pending transfer: cancel it first' },
  /** Not transferable now: the inventory's policy, the ticket's status, a check-in (docs/transfers.md). */
  ticket_not_transferable: { status: 409, message: 'This ticket cannot be transferred now' },
  /** A transfer cancelled after it was accepted, declined or expired (docs/transfers.md). */
  transfer_ended: { status: 409, message: 'This transfer was answered or has expired' },
  /** A ticket received by a transfer: it is voided or refunded on the order that sold it (docs/transfers.md). */
  ticket_sold_elsewhere: { status: 409, message: 'This ticket was given by a transfer: void or refund it on the order that sold it' },
  /** The buyer's cancellation after its window (docs/payments.md); `details.until`. */
  withdrawal_closed: { status: 409, message: 'The withdrawal period for this order is over' },
  /** An export asked while two of the seller's run, or the file of one still running (docs/exports.md). */
  export_running: { status: 409, message: 'An export is still running: wait until it is done' },
  basket_expired: { status: 410, message: 'The basket hold has expired' },
  /** A waiting list's offer accepted or declined after its `offer_expires_at`. */
  offer_expired: { status: 410, message: 'The offer has expired' },
  /** A device's pairing QR asked after its code was used or expired, or the device revoked (docs/door.md). */
  pairing_unavailable: { status: 410, message: 'The pairing code was used or has expired: create a new device' },
  /** The file of an export that failed (its process stopped, or an error): ask for a new one (docs/exports.md). */
  export_failed: { status: 410, message: 'This export failed: create a new one' },
  /** The file of an export past its `expires_at` (kept 24 h, docs/exports.md). */
  export_expired: { status: 410, message: 'This export has expired: create a new one' },
  payload_too_large: { status: 413, message: 'The request body is too large' },
  unsupported_media_type: { status: 415, message: 'The request body must be application/json' },
  coupon_invalid: { status: 422, message: 'This coupon does not exist or is not valid now' },
  coupon_not_applicable: { status: 422, message: 'This coupon does not apply to this basket' },
  coupon_exhausted: { status: 422, message: 'This coupon has reached its usage limit' },
  unsupported_payment_method: { status: 422, message: 'This payment method is not supported' },
  basket_empty: { status: 422, message: 'The basket has no items' },
  rate_limited: { status: 429, message: 'Too many requests, retry later' },
  internal_error: { status: 500, message: 'An unexpected error occurred' },
  /** The database cannot be reached or did not answer in time; the process recovers by itself. */
  service_unavailable: { status: 503, message: 'The service is temporarily unavailable' },
} as const satisfies Record<string, { status: number; message: string }>

export type ErrorCode = keyof typeof ERRORS

export type ErrorDetail = { path: string; message: string }

/**
 * What an error says beyond its message: which fields were wrong (validation), or the facts a
 * refusal of a business rule names, such as `{ inventory_id }` (docs/selling.md).
 */
export type ErrorDetails = ErrorDetail[] | Readonly<Record<string, unknown>>

export type AppErrorOptions = {
  message?: string
  details?: ErrorDetails
  headers?: Record<string, string>
  cause?: unknown
}

/** A failure with a stable code. Services throw it; the error handler renders it. */
export class AppError extends Error {
  readonly code: ErrorCode
  readonly status: number
  readonly details: ErrorDetails | undefined
  readonly headers: Record<string, string>

  constructor(code: ErrorCode, options: AppErrorOptions = {}) {
    // A refusal (4xx) is an answer, not a fault: its stack is never logged nor shown, and
    // capturing one costs more than the rest of a refusal served from memory.
    const stackTraceLimit = Error.stackTraceLimit
    if (ERRORS[code].status < 500) Error.stackTraceLimit = 0
    try {
      super(options.message ?? ERRORS[code].message, { cause: options.cause })
    } finally {
      Error.stackTraceLimit = stackTraceLimit
    }
    this.name = 'AppError'
    this.code = code
    this.status = ERRORS[code].status
    this.details = options.details
    this.headers = options.headers ?? {}
  }

  /** For libraries that read the status of an error they pass along (e.g. @fastify/basic-auth). */
  get statusCode(): number {
    return this.status
  }
}

export const isAppError = (error: unknown): error is AppError => error instanceof AppError
