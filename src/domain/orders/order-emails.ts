import { eq, inArray } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import type { EmailMessage } from '../../platform/mail/outbox.repo.js'
import { isPaymentMethod, type PaymentMethod } from '../baskets/installment-plans.js'
import { events } from '../catalog/events.table.js'
import { formatBrl } from '../catalog/price-label.js'
import { composeBuyerEmail, describeInstant, storefrontLink, type EmailSeller } from '../customers/customer-emails.js'
import type { RefundView } from '../payments/payment-views.js'
import type { Locale } from '../sellers/seller-settings.js'
import { sellers } from '../sellers/sellers.table.js'
import type { OrderItemView, OrderView } from './order-view.js'
import { orderItems, orders } from './orders.table.js'
import { doorsLine, seatLine, showLine, venueLine } from './ticket-images.js'

// The emails of an order's payment (docs/payments.md): what is due and until when, the tickets once it
// is paid, its expiry, a refund. Each in the seller's language, its times on the seller's clock
// (describeInstant), its money as the seller's buyers write it; the wording of both languages side
// by side, as customer-emails.ts keeps the others, so the compiler refuses a kind missing in either.

/** Who an order's emails go to, the seller they speak for (its locale and time zone), and the titles of the order's events by id. */
export type OrderEmailContext = {
  seller: EmailSeller
  to: { email: string; name: string | null }
  eventTitles: ReadonlyMap<string, string>
  /** A guest's order (no account): its emails point to the order's link, not to an account. */
  guest: boolean
  /** The order's page with its token (`{storefront_url}/orders/{id}?token=`), when this email may carry it: only where the token was just made. */
  link?: string | undefined
}

/** The buyer and seller of each order, and the titles of its events, by order id: two reads for a batch of orders. */
export async function orderEmailContexts(tx: Db, orderIds: readonly string[]): Promise<Map<string, OrderEmailContext>> {
  if (orderIds.length === 0) return new Map()
  const rows = await tx
    .select({
      orderId: orders.id,
      email: orders.buyerEmail,
      buyerName: orders.buyerName,
      customerId: orders.customerId,
      name: sellers.name,
      storefrontUrl: sellers.storefrontUrl,
      locale: sellers.locale,
      timezone: sellers.timezone,
    })
    .from(orders)
    .innerJoin(sellers, eq(sellers.id, orders.sellerId))
    .where(inArray(orders.id, [...orderIds]))
  const titles = await tx
    .selectDistinct({ orderId: orderItems.orderId, eventId: events.id, title: events.title })
    .from(orderItems)
    .innerJoin(events, eq(events.id, orderItems.eventId))
    .where(inArray(orderItems.orderId, [...orderIds]))
  return new Map(
    rows.map((row) => [
      row.orderId,
      {
        seller: { name: row.name, storefrontUrl: row.storefrontUrl, settings: { locale: row.locale, timezone: row.timezone } },
        // Greeted by the first word of the name, as an account's first name greets it.
        to: { email: row.email, name: row.buyerName.trim().split(/\s+/)[0] || null },
        eventTitles: new Map(titles.filter((t) => t.orderId === row.orderId).map((t) => [t.eventId, t.title])),
        guest: row.customerId === null,
      },
    ]),
  )
}

/** What the pending email says: the amount and method already in the email's language, `until` null when the order has no deadline. */
type PendingWords = { seller: string; order: string; amount: string; method: string; until: string | null; items: string[]; link: string | null }
/** `amount` null: nothing was paid (a free order). */
type ConfirmedWords = { seller: string; order: string; amount: string | null; tickets: string[]; storefront: string; guest: boolean; link: string | null }
type ExpiredWords = { seller: string; order: string; until: string | null; items: string[]; storefront: string }
/** `doneAt` null: the refund is pending; `cancelled`: the order is cancelled (a refund of everything, a withdrawal). */
type RefundWords = { seller: string; order: string; amount: string; doneAt: string | null; tickets: string[]; cancelled: boolean }

type OrderCatalogue = {
  method: Record<PaymentMethod, string>
  installments: (n: number) => string
  ticket: (identifier: string) => string
  /** The order reissued a link: the new one, the earlier one dead. */
  link: { subject: (seller: string) => string; lines: (w: { seller: string; order: string; link: string }) => string[] }
  pending: { subject: (seller: string) => string; lines: (w: PendingWords) => string[] }
  confirmed: { subject: (seller: string) => string; lines: (w: ConfirmedWords) => string[] }
  expired: { subject: (seller: string) => string; lines: (w: ExpiredWords) => string[] }
  refunded: { subject: (seller: string, amount: string) => string; lines: (w: RefundWords) => string[] }
}

const CATALOGUE: Record<Locale, OrderCatalogue> = {
  'pt-BR': {
    method: { pix: 'Pix', boleto: 'boleto', credit_card: 'cartão de crédito' },
    installments: (n) => ` em ${n} parcelas`,
    ticket: (identifier) => `Ingresso ${identifier}`,
    link: {
      subject: (seller) => `${seller}: novo link do seu pedido`,
      lines: (w) => [
        `Este é o novo link do seu pedido ${w.order} em ${w.seller}; o link anterior não funciona mais:`,
        '',
        w.link,
        '',
        'Guarde-o: ele dá acesso ao pedido e aos seus ingressos.',
      ],
    },
    pending: {
      subject: (seller) => `${seller}: seu pedido aguarda pagamento`,
      lines: (w) => [
        `Recebemos seu pedido em ${w.seller}. Para garantir seus ingressos, pague ${w.amount} via ${w.method}${w.until === null ? '.' : ` até ${w.until}.`}`,
        '',
        `Pedido ${w.order}:`,
        ...w.items,
        '',
        'Os ingressos ficam reservados para você até lá; sem o pagamento, o pedido expira e eles voltam à venda. ' +
          'Assim que o pagamento for confirmado, você recebe outro e-mail com seus ingressos.',
        ...(w.link === null ? [] : ['', `Veja seu pedido neste link (guarde-o: ele dá acesso ao pedido): ${w.link}`]),
      ],
    },
    confirmed: {
      subject: (seller) => `${seller}: seus ingressos`,
      lines: (w) => [
        w.amount === null
          ? `Seu pedido ${w.order} em ${w.seller} está confirmado. Seus ingressos:`
          : `Recebemos o pagamento de ${w.amount} do seu pedido ${w.order} em ${w.seller}. Seus ingressos estão confirmados:`,
        '',
        ...w.tickets,
        '',
        w.link !== null
          ? `Veja e baixe seus ingressos neste link (guarde-o: ele dá acesso ao pedido): ${w.link}. Na entrada, apresente o QR code de cada ingresso.`
          : w.guest
            ? `Veja e baixe seus ingressos pelo link do pedido, enviado no primeiro e-mail, ou crie uma conta em ${w.storefront} com este e-mail. Na entrada, apresente o QR code de cada ingresso.`
            : `Eles estão na sua conta em ${w.storefront}: entre com este e-mail para vê-los e baixá-los. Na entrada, apresente o QR code de cada ingresso.`,
      ],
    },
    expired: {
      subject: (seller) => `${seller}: seu pedido expirou`,
      lines: (w) => [
        (w.until === null
          ? `O pagamento do seu pedido ${w.order} em ${w.seller} não foi confirmado a tempo.`
          : `O prazo para pagar seu pedido ${w.order} em ${w.seller} terminou em ${w.until}, sem que o pagamento fosse confirmado.`) +
          ' O pedido expirou e estes ingressos voltaram à venda:',
        '',
        ...w.items,
        '',
        `Se ainda quiser ir, faça um novo pedido em ${w.storefront}. Se você pagou depois do prazo, fale com ${w.seller}.`,
      ],
    },
    refunded: {
      subject: (seller, amount) => `${seller}: reembolso de ${amount}`,
      lines: (w) => [
        w.doneAt === null
          ? `${w.seller} registrou um reembolso de ${w.amount} do seu pedido ${w.order}. Ele está em andamento: o valor volta pelo meio de pagamento usado na compra.`
          : `O reembolso de ${w.amount} do seu pedido ${w.order} em ${w.seller} foi concluído em ${w.doneAt}: o valor volta pelo meio de pagamento usado na compra.`,
        ...(w.cancelled ? ['', 'Seu pedido foi cancelado.'] : []),
        ...(w.tickets.length > 0 ? ['', 'O reembolso cobre estes ingressos, que foram cancelados e não valem mais na entrada:', ...w.tickets] : []),
      ],
    },
  },
  en: {
    method: { pix: 'Pix', boleto: 'boleto', credit_card: 'credit card' },
    installments: (n) => ` in ${n} installments`,
    ticket: (identifier) => `Ticket ${identifier}`,
    link: {
      subject: (seller) => `A new link to your ${seller} order`,
      lines: (w) => [
        `This is the new link to your order ${w.order} at ${w.seller}; the earlier link no longer works:`,
        '',
        w.link,
        '',
        'Keep it: it opens the order and your tickets.',
      ],
    },
    pending: {
      subject: (seller) => `Your ${seller} order awaits payment`,
      lines: (w) => [
        `We received your order at ${w.seller}. To secure your tickets, pay ${w.amount} by ${w.method}` +
          (w.until === null ? '.' : ` no later than ${w.until}.`),
        '',
        `Order ${w.order}:`,
        ...w.items,
        '',
        'Your tickets are held for you until then; without payment the order expires and they go back on sale. ' +
          'Once your payment is confirmed, you will receive another email with your tickets.',
        ...(w.link === null ? [] : ['', `See your order at this link (keep it: it opens the order): ${w.link}`]),
      ],
    },
    confirmed: {
      subject: (seller) => `Your tickets from ${seller}`,
      lines: (w) => [
        w.amount === null
          ? `Your order ${w.order} at ${w.seller} is confirmed. Your tickets:`
          : `We received your payment of ${w.amount} for order ${w.order} at ${w.seller}. Your tickets are confirmed:`,
        '',
        ...w.tickets,
        '',
        w.link !== null
          ? `See and download them at this link (keep it: it opens the order): ${w.link}. At the door, show each ticket's QR code.`
          : w.guest
            ? `See and download them with the order's link from its first email, or create an account at ${w.storefront} with this email address. At the door, show each ticket's QR code.`
            : `They are in your account at ${w.storefront}: sign in with this email address to see and download them. At the door, show each ticket's QR code.`,
      ],
    },
    expired: {
      subject: (seller) => `Your ${seller} order has expired`,
      lines: (w) => [
        (w.until === null
          ? `The payment for your order ${w.order} at ${w.seller} was not confirmed in time.`
          : `The time to pay for your order ${w.order} at ${w.seller} ran out on ${w.until} before the payment was confirmed.`) +
          ' The order has expired and these tickets went back on sale:',
        '',
        ...w.items,
        '',
        `If you still want to go, place a new order at ${w.storefront}. If you paid after the deadline, contact ${w.seller}.`,
      ],
    },
    refunded: {
      subject: (seller, amount) => `Your ${seller} refund of ${amount}`,
      lines: (w) => [
        w.doneAt === null
          ? `${w.seller} has issued a refund of ${w.amount} for your order ${w.order}. It is in progress: the money goes back to the payment method you used.`
          : `The refund of ${w.amount} for your order ${w.order} at ${w.seller} was completed on ${w.doneAt}: the money goes back to the payment method you used.`,
        ...(w.cancelled ? ['', 'Your order has been cancelled.'] : []),
        ...(w.tickets.length > 0 ? ['', 'The refund covers these tickets, which have been cancelled and are no longer valid at the door:', ...w.tickets] : []),
      ],
    },
  },
}

const localeOf = (context: OrderEmailContext) => context.seller.settings.locale
const wordsOf = (context: OrderEmailContext) => CATALOGUE[localeOf(context)]
const money = (centavos: number, context: OrderEmailContext) => formatBrl(centavos, localeOf(context))
const instant = (iso: string | null, context: OrderEmailContext) => (iso === null ? null : describeInstant(new Date(iso), context.seller))

const compose = (kind: string, context: OrderEmailContext, subject: string, lines: string[]) =>
  composeBuyerEmail(kind, context.to.email, context.to.name, context.seller, subject, lines)

/**
 * "Festival de Verão — Pista · Meia, sábado, 12 de dezembro de 2026 às 20:00 (abertura dos portões às 19:00), Arena Azul (Rua
 * Augusta, 123, São Paulo, SP, Brasil)": the event, the inventory (and variant), its date and show times, and the venue, each when said.
 */
export function describeItem(item: OrderItemView, context: OrderEmailContext): string {
  const locale = localeOf(context)
  const title = context.eventTitles.get(item.event_id)
  const what = `${item.name}${item.variant ? ` · ${item.variant}` : ''}`
  const when = `${showLine(item.date, item.time, locale)}${item.doors_time ? ` (${doorsLine(item.doors_time, locale)})` : ''}`
  return `${title ? `${title} — ${what}` : what}, ${when}${item.venue ? `, ${venueLine(item.venue, locale)}` : ''}`
}

const itemLines = (order: OrderView, context: OrderEmailContext) => order.items.map((item) => `- ${item.quantity} × ${describeItem(item, context)}`)

/** "- Ingresso K7Q…: Festival — Pista, sábado, 12 de dezembro de 2026, Plateia · Fila A · Assento 7": one line per identifier. */
function ticketLines(order: OrderView, identifiers: readonly string[], context: OrderEmailContext): string[] {
  const words = wordsOf(context)
  return identifiers.map((identifier) => {
    const ticket = order.tickets.find((t) => t.identifier === identifier)
    const item =
      ticket &&
      (order.items.find((i) => i.inventory_id === ticket.inventory_id && i.variant === ticket.variant) ??
        order.items.find((i) => i.inventory_id === ticket.inventory_id))
    if (!ticket || !item) return `- ${words.ticket(identifier)}`
    return `- ${words.ticket(identifier)}: ${describeItem(item, context)}${ticket.seat ? `, ${seatLine(ticket.seat, localeOf(context))}` : ''}`
  })
}

function methodOf(order: OrderView, context: OrderEmailContext): string {
  const words = wordsOf(context)
  const { method, installments } = order.payment
  if (method === null) return ''
  return `${isPaymentMethod(method) ? words.method[method] : method}${installments > 1 ? words.installments(installments) : ''}`
}

/** A pending checkout (docs/payments.md): what is owed, by which method, for which items and until when, on the seller's clock. */
export function orderPendingEmail(context: OrderEmailContext, order: OrderView): EmailMessage {
  const words = wordsOf(context).pending
  return compose(
    'stf.order_pending',
    context,
    words.subject(context.seller.name),
    words.lines({
      seller: context.seller.name,
      order: order.id,
      amount: money(order.totals.total - order.paid_total, context),
      method: methodOf(order, context),
      until: instant(order.payment_due_at, context),
      items: itemLines(order, context),
      link: context.link ?? null,
    }),
  )
}

/** The tickets' email: the order is paid; its valid tickets, and where the buyer finds them (its account at the storefront). */
export function orderConfirmedEmail(context: OrderEmailContext, order: OrderView): EmailMessage {
  const words = wordsOf(context).confirmed
  const valid = order.tickets.filter((t) => t.status === 'valid').map((t) => t.identifier)
  return compose(
    'stf.order_confirmed',
    context,
    words.subject(context.seller.name),
    words.lines({
      seller: context.seller.name,
      order: order.id,
      amount: order.paid_total > 0 ? money(order.paid_total, context) : null,
      tickets: ticketLines(order, valid, context),
      storefront: context.seller.storefrontUrl,
      guest: context.guest,
      link: context.link ?? null,
    }),
  )
}

/** An order that was not paid in time: when its time to pay ran out (seller's clock), and that its tickets are back on sale. */
export function orderExpiredEmail(context: OrderEmailContext, order: OrderView): EmailMessage {
  const words = wordsOf(context).expired
  return compose(
    'stf.order_expired',
    context,
    words.subject(context.seller.name),
    words.lines({
      seller: context.seller.name,
      order: order.id,
      until: instant(order.payment_due_at, context),
      items: itemLines(order, context),
      storefront: context.seller.storefrontUrl,
    }),
  )
}

/** A refund for the buyer: its amount, whether it is still pending or done (and when), and the tickets it cancelled, if any. */
export function refundEmail(context: OrderEmailContext, order: OrderView, refund: RefundView): EmailMessage {
  const words = wordsOf(context).refunded
  const amount = money(refund.amount, context)
  return compose(
    'stf.order_refunded',
    context,
    words.subject(context.seller.name, amount),
    words.lines({
      seller: context.seller.name,
      order: order.id,
      amount,
      doneAt: refund.status === 'done' ? instant(refund.done_at ?? refund.created_at, context) : null,
      tickets: ticketLines(order, refund.tickets, context),
      cancelled: order.status === 'cancelled',
    }),
  )
}

/** A new link to the order (its token reissued by the back office): the earlier link no longer opens it. */
export function orderLinkEmail(context: OrderEmailContext & { link: string }, orderId: string): EmailMessage {
  const words = wordsOf(context).link
  return compose(
    'stf.order_link',
    context,
    words.subject(context.seller.name),
    words.lines({ seller: context.seller.name, order: orderId, link: context.link }),
  )
}

/** `{storefront_url}/orders/{id}?token=<token>`: a guest's order page, opened by its token (docs/selling.md). */
export const orderLinkOf = (storefrontUrl: string, orderId: string, token: string) => storefrontLink(storefrontUrl, `orders/${orderId}`, token)
