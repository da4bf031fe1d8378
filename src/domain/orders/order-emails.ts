import { eq, inArray } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import type { EmailMessage } from '../../platform/mail/outbox.repo.js'
import { describeInstant, type EmailSeller } from '../customers/customer-emails.js'
import { customers } from '../customers/customers.table.js'
import type { RefundView } from '../payments/payment-views.js'
import { sellers } from '../sellers/sellers.table.js'
import type { OrderView } from './order-view.js'
import { orders } from './orders.table.js'

/** Who an order's emails go to, and the seller they speak for (its locale and time zone). */
export type OrderEmailContext = { seller: EmailSeller; to: { email: string; name: string | null } }

/** The buyer and seller of each order, by order id: one read for a batch of orders. */
export async function orderEmailContexts(tx: Db, orderIds: readonly string[]): Promise<Map<string, OrderEmailContext>> {
  if (orderIds.length === 0) return new Map()
  const rows = await tx
    .select({
      orderId: orders.id,
      email: customers.email,
      firstName: customers.firstName,
      name: sellers.name,
      storefrontUrl: sellers.storefrontUrl,
      locale: sellers.locale,
      timezone: sellers.timezone,
    })
    .from(orders)
    .innerJoin(customers, eq(customers.id, orders.customerId))
    .innerJoin(sellers, eq(sellers.id, orders.sellerId))
    .where(inArray(orders.id, [...orderIds]))
  return new Map(
    rows.map((row) => [
      row.orderId,
      {
        seller: { name: row.name, storefrontUrl: row.storefrontUrl, settings: { locale: row.locale, timezone: row.timezone } },
        to: { email: row.email, name: row.firstName || null },
      },
    ]),
  )
}

const money = (centavos: number, context: OrderEmailContext) =>
  new Intl.NumberFormat(context.seller.settings.locale, { style: 'currency', currency: 'BRL' }).format(centavos / 100)

const compose = (kind: string, context: OrderEmailContext, subject: string, lines: string[]): EmailMessage => ({
  kind,
  to: context.to.email,
  subject,
  text: [`${context.to.name ? `Olá, ${context.to.name}` : 'Olá'}`, '', ...lines, ''].join('\n'),
})

/** A pending checkout (API.md 7.9): what is due and until when, in the seller's language and time zone. */
export function orderPendingEmail(context: OrderEmailContext, order: OrderView): EmailMessage {
  const until = order.payment_due_at ? describeInstant(new Date(order.payment_due_at), context.seller) : ''
  return compose('stf.order_pending', context, `${context.seller.name}: pedido aguardando pagamento`, [
    `Seu pedido ${order.id} aguarda o pagamento de ${money(order.totals.total - order.paid_total, context)} até ${until}.`,
  ])
}

/** The tickets' email: the order is paid and its tickets are valid. */
export function orderConfirmedEmail(context: OrderEmailContext, order: OrderView): EmailMessage {
  return compose('stf.order_confirmed', context, `${context.seller.name}: seus ingressos`, [
    `Seu pedido ${order.id} está confirmado: ${order.tickets.filter((t) => t.status === 'valid').length} ingresso(s).`,
  ])
}

/** An order that was not paid in time: its tickets are back on sale. */
export function orderExpiredEmail(context: OrderEmailContext, order: OrderView): EmailMessage {
  return compose('stf.order_expired', context, `${context.seller.name}: pedido expirado`, [`Seu pedido ${order.id} não foi pago a tempo e expirou.`])
}

/** A refund created for the buyer. */
export function refundEmail(context: OrderEmailContext, order: OrderView, refund: RefundView): EmailMessage {
  return compose('stf.order_refunded', context, `${context.seller.name}: reembolso`, [
    `Um reembolso de ${money(refund.amount, context)} do pedido ${order.id} foi registrado.`,
  ])
}
