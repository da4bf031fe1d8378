import type { Db } from '../../platform/db/database.js'
import { withTicketCodes } from '../checkin/sign-order-tickets.js'
import type { TicketCodes } from '../checkin/ticket-codes.js'
import { orderDetails, type ItemShow, type OrderItemRow, type OrderRow, type ShownOrderItemRow, type TicketRow } from './orders.repo.js'
import type { EventVenue } from '../catalog/events.table.js'
import type { CouponSnapshot, OrderSource, OrderStatus, TransferredFrom } from './orders.table.js'
import { toPaymentView, toRefundView, type PaymentRow, type PaymentView, type RefundRow, type RefundView } from '../payments/payment-views.js'
import type { Seat } from '../inventory/inventory.repo.js'

/** An item as sold: prices and the coupon as they were at checkout; the items' totals add up to the order's subtotal − discount. */
export type SoldItemView = {
  id: string
  inventory_id: string
  event_id: string
  date: string
  name: string
  /** The variant sold (its name), or null. */
  variant: string | null
  quantity: number
  unit_price: number
  discount: number
  total: number
  coupon: CouponSnapshot | null
  /** Reserved seating: the seats sold (null: unseated). */
  seats: Seat[] | null
}

/** An item of an order (docs/selling.md): as sold, and when and where its show is as its inventory and event say now. */
export type OrderItemView = SoldItemView & { time: string | null; doors_time: string | null; venue: EventVenue | null }

/** An order item as sold (a checked-out basket's item reads so too). */
export const toOrderItemView = (item: OrderItemRow): SoldItemView => ({
  id: item.id,
  inventory_id: item.inventoryId,
  event_id: item.eventId,
  date: item.date,
  name: item.name,
  variant: item.variant,
  quantity: item.quantity,
  unit_price: item.unitPrice,
  discount: item.discount,
  total: item.total,
  coupon: item.coupon ?? null,
  seats: item.seats ?? null,
})

/** An order item as the API answers it. */
export const toShownItemView = (item: OrderItemRow & ItemShow): OrderItemView => ({
  ...toOrderItemView(item),
  time: item.time,
  doors_time: item.doorsTime,
  venue: item.venue ?? null,
})

/** An order before its tickets' signed codes are added (`signOrderView`). */
export type UnsignedOrderView = {
  id: string
  status: OrderStatus
  /** `transfer`: an order holding a ticket given to its customer (docs/transfers.md), total 0. */
  source: OrderSource
  transferred_from: TransferredFrom | null
  customer_id: string | null
  buyer: { email: string; name: string }
  affiliate_code: string | null
  items: OrderItemView[]
  totals: { subtotal: number; discount: number; interest: number; total: number }
  /** `method` null: an order of a transfer, nothing paid. */
  payment: { method: string | null; installments: number; installment_amount: number; reference: string | null }
  /** A pending order's deadline (kept after payment); null: paid at checkout. */
  payment_due_at: string | null
  paid_total: number
  /** What its done refunds gave back. */
  refunded_total: number
  payments: PaymentView[]
  refunds: RefundView[]
  tickets: {
    identifier: string
    inventory_id: string
    variant: string | null
    status: TicketStatus
    /** Reserved seating: the seat it sits in, as sold (null: unseated). */
    seat: Seat | null
    /** Whose ticket it is: named after checkout, or the order's buyer. */
    holder: TicketHolder
    /** Bumped by a holder change, a re-issue or a retired key: only the code of this version passes the gate. */
    code_version: number
    /** Given away (`transferred`): to whom, the email masked. */
    transferred_to: { name: string; email: string } | null
    first_access_at: string | null
    /** The key that signs its code (null: the seller's legacy key); left out of the signed view. */
    signing_key_id: string | null
  }[]
  created_at: string
  /** For the back office; the storefront's Order leaves these out. */
  seller_id: string
  cancelled_at: string | null
}

/** The API shape of an order (docs/selling.md, docs/door.md, docs/payments.md): every ticket with its signed `code` (null while its order is unpaid). */
export type OrderView = Omit<UnsignedOrderView, 'tickets'> & {
  tickets: (Omit<UnsignedOrderView['tickets'][number], 'signing_key_id'> & { code: string | null })[]
}

/** A ticket's statuses (docs/payments.md), derived by `ticketStatus`. */
export const TICKET_STATUSES = ['pending', 'valid', 'voided', 'expired', 'transferred'] as const
export type TicketStatus = (typeof TICKET_STATUSES)[number]

/** A ticket's status at the gate: a transferred ticket's identifier and codes are `revoked` there (docs/transfers.md). */
export const SCAN_TICKET_STATUSES = ['pending', 'valid', 'voided', 'expired', 'revoked'] as const
export type ScanTicketStatus = (typeof SCAN_TICKET_STATUSES)[number]

/** A ticket's holder: `document` whole only to the back office (`maskDocument`). */
export type TicketHolder = { name: string; document: string | null }

/**
 * A ticket's status, from its own void and transfer and its order's status (docs/payments.md,
 * docs/transfers.md): a ticket of an order awaiting payment is `pending`, of an order that expired
 * unpaid `expired` (voided with it); a ticket given away is `transferred` until its sale is voided.
 */
export function ticketStatus(orderStatus: OrderStatus, voided: boolean, transferred = false): TicketStatus {
  if (orderStatus === 'expired') return 'expired'
  if (voided) return 'voided'
  if (transferred) return 'transferred'
  return orderStatus === 'pending' ? 'pending' : 'valid'
}

/** The status the gates see: a transferred ticket is `revoked` (voided or not: either way its code is dead). */
export const scanTicketStatus = (orderStatus: OrderStatus, voided: boolean, transferred: boolean): ScanTicketStatus =>
  transferred ? 'revoked' : (ticketStatus(orderStatus, voided) as ScanTicketStatus)

/** A document as shown outside the back office: all but its last 3 characters as `*`. */
export const maskDocument = (document: string): string => '*'.repeat(Math.max(0, document.length - 3)) + document.slice(-3)

/** An email as the sender of a transfer sees it: the first character of its local part, then `***`, and the domain. */
export const maskEmail = (email: string): string => {
  const at = email.lastIndexOf('@')
  return at <= 0 ? '***' : `${email.slice(0, 1)}***${email.slice(at)}`
}

/** Whether documents show whole (the back office) or masked (the storefront). */
export type DocumentsShown = 'whole' | 'masked'

/** An order's payments and refunds, oldest first. */
export type OrderMoney = { payments: PaymentRow[]; refunds: RefundRow[] }

/** The order with its tickets' signed codes, the keys read through `db` when this process has not opened them yet. */
export const signOrderView = (db: Db, codes: TicketCodes, view: UnsignedOrderView): Promise<OrderView> => withTicketCodes(db, codes, view.seller_id, view)

/** The API shape of an order (docs/selling.md), before signing. Tickets follow their items' order (and a seated item's, its seats'). */
export function toOrderView(
  order: OrderRow,
  items: ShownOrderItemRow[],
  ticketRows: TicketRow[],
  money: OrderMoney,
  extra: { recipients?: ReadonlyMap<string, TransferRecipient>; documents?: DocumentsShown } = {},
): UnsignedOrderView {
  const recipients = extra.recipients ?? new Map<string, TransferRecipient>()
  const document = (value: string | null) => (value === null || extra.documents === 'whole' ? value : maskDocument(value))
  const sortedItems = [...items].sort((x, y) => x.position - y.position)
  const itemOrder = new Map(sortedItems.map((item, n) => [item.id, n]))
  const variantOf = new Map(sortedItems.map((item) => [item.id, item.variant]))
  // A ticket's seat as its item sold it (the snapshot, plans never change): no read of the plan.
  const seatsOf = new Map(sortedItems.map((item) => [item.id, item.seats]))
  const seatOf = (t: TicketRow) => (t.seatId === null ? null : (seatsOf.get(t.orderItemId)?.find((seat) => seat.id === t.seatId) ?? null))
  const seatPlace = (t: TicketRow) => (t.seatId === null ? 0 : (seatsOf.get(t.orderItemId)?.findIndex((seat) => seat.id === t.seatId) ?? 0))
  // Seated tickets in their item's order of seats, the others by identifier.
  const sortedTickets = [...ticketRows].sort(
    (x, y) => itemOrder.get(x.orderItemId)! - itemOrder.get(y.orderItemId)! || seatPlace(x) - seatPlace(y) || (x.identifier < y.identifier ? -1 : 1),
  )
  return {
    id: order.id,
    status: order.status,
    source: order.source,
    transferred_from: order.transferredFrom ?? null,
    customer_id: order.customerId,
    buyer: { email: order.buyerEmail, name: order.buyerName },
    affiliate_code: order.affiliateCode,
    items: sortedItems.map(toShownItemView),
    totals: { subtotal: order.subtotal, discount: order.discount, interest: order.interest, total: order.total },
    payment: {
      method: order.paymentMethod,
      installments: order.installments,
      installment_amount: order.installmentAmount,
      reference: order.paymentReference,
    },
    payment_due_at: order.paymentDueAt?.toISOString() ?? null,
    paid_total: order.paidTotal,
    refunded_total: order.refundedTotal,
    payments: money.payments.map(toPaymentView),
    refunds: money.refunds.map(toRefundView),
    tickets: sortedTickets.map((t) => ({
      identifier: t.identifier,
      inventory_id: t.inventoryId,
      variant: variantOf.get(t.orderItemId) ?? null,
      status: ticketStatus(order.status, t.voidedAt !== null, t.transferredAt !== null),
      seat: seatOf(t),
      holder: { name: t.holderName ?? order.buyerName, document: document(t.holderDocument) },
      code_version: t.codeVersion,
      transferred_to: transferredTo(t, recipients),
      first_access_at: t.firstAccessAt?.toISOString() ?? null,
      signing_key_id: t.signingKeyId,
    })),
    created_at: order.createdAt.toISOString(),
    seller_id: order.sellerId,
    cancelled_at: order.cancelledAt?.toISOString() ?? null,
  }
}

/** Who accepted a ticket given away, by the ticket's id. */
export type TransferRecipient = { name: string; email: string }

const transferredTo = (t: TicketRow, recipients: ReadonlyMap<string, TransferRecipient>) => {
  if (t.transferredAt === null) return null
  const recipient = recipients.get(t.id)
  return recipient ? { name: recipient.name, email: maskEmail(recipient.email) } : null
}

/** Orders with their items and tickets, in the order given, signed; holders' documents masked unless `documents` is `whole`. */
export async function loadOrderViews(db: Db, codes: TicketCodes, rows: OrderRow[], documents: DocumentsShown = 'masked'): Promise<OrderView[]> {
  const { items, tickets, payments, refunds, recipients } = await orderDetails(
    db,
    rows.map((o) => o.id),
  )
  // One after another: `db` may be a transaction, which runs one statement at a time.
  const views: OrderView[] = []
  for (const order of rows) {
    const view = toOrderView(
      order,
      items.filter((i) => i.orderId === order.id),
      tickets.filter((t) => t.orderId === order.id),
      { payments: payments.filter((p) => p.orderId === order.id), refunds: refunds.filter((r) => r.orderId === order.id) },
      { recipients, documents },
    )
    views.push(await signOrderView(db, codes, view))
  }
  return views
}
