import type { RefundView } from '../payments/payment-views.js'
import { randomUUID } from 'node:crypto'
import { type SQL, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import type { OrderView } from '../orders/order-view.js'
import { webhookDeliveries, webhookEndpoints, webhookEvents, type WebhookEventType } from './webhooks.table.js'

export type WebhookEventInput = {
  /** Made here when absent. */
  id?: string
  type: WebhookEventType
  /** The event's `data`, exactly as the API answers the object. */
  data: unknown
  affiliateCode?: string | null | undefined
  /** Events of one key (an order id) reach each endpoint in the order they happened. */
  orderingKey?: string | null | undefined
}

/**
 * The one statement that records events of a seller and queues one delivery per active endpoint
 * that subscribes to each (all of them: `events` null), or only to `endpointId` (a ping, whatever
 * it subscribes to, active or not). An event no endpoint wants is not written at all, so a seller without
 * endpoints pays one cheap statement that writes nothing. Send it in the transaction of the change
 * that causes the events: a rolled-back change sends nothing, a committed one loses nothing.
 */
export function webhookEventsStatement(sellerId: string, events: readonly WebhookEventInput[], options: { endpointId?: string } = {}): SQL {
  const rows = sql.join(
    events.map(
      (event, position) =>
        sql`(${event.id ?? randomUUID()}, ${event.type}, ${event.affiliateCode ?? null}, ${event.orderingKey ?? null}, ${JSON.stringify(event.data)}, ${position})`,
    ),
    sql`, `,
  )
  const wants = (endpoint: SQL, type: SQL) => (options.endpointId ? sql`true` : sql`(${endpoint}.events is null or ${type} = any(${endpoint}.events))`)
  return sql`
    with endpoints as (
      select id, events from ${webhookEndpoints}
       where seller_id = ${sellerId}::uuid and ${options.endpointId ? sql`id = ${options.endpointId}::uuid` : sql`active`}
    ), inserted as (
      insert into ${webhookEvents} (id, seller_id, type, affiliate_code, ordering_key, payload)
      select v.id::uuid, ${sellerId}::uuid, v.type, v.affiliate_code, v.ordering_key, v.payload::json
        from (values ${rows}) as v(id, type, affiliate_code, ordering_key, payload, position)
       where exists (select 1 from endpoints e where ${wants(sql`e`, sql`v.type`)})
       order by v.position::int
      returning id, type, ordering_key, seq
    )
    insert into ${webhookDeliveries} (event_id, endpoint_id, ordering_key, event_seq)
    select i.id, e.id, i.ordering_key, i.seq from inserted i join endpoints e on ${wants(sql`e`, sql`i.type`)}`
}

/** Records events in the transaction `db` and queues their deliveries (`webhookEventsStatement`). */
export async function recordWebhookEvents(db: Db, sellerId: string, events: readonly WebhookEventInput[], options: { endpointId?: string } = {}) {
  if (events.length > 0) await db.execute(webhookEventsStatement(sellerId, events, options))
}

/** An order event: `data` is the Order as the API answers it, ordered with the order's other events. */
export const orderEvent = (type: 'order.pending' | 'order.confirmed' | 'order.expired' | 'order.cancelled', order: OrderView): WebhookEventInput => ({
  type,
  data: order,
  affiliateCode: order.affiliate_code,
  orderingKey: order.id,
})

/** A refund event: `data` is the Refund, ordered with its order's other events. */
export const refundEvent = (type: 'refund.created' | 'refund.done', refund: RefundView, affiliateCode: string | null): WebhookEventInput => ({
  type,
  data: refund,
  affiliateCode,
  orderingKey: refund.order_id,
})

/** A ticket event: `data` is the ticket as the API answers it, with its order's id. */
export function ticketEvents(type: 'ticket.voided' | 'ticket.first_access', order: OrderView, identifiers: readonly string[]): WebhookEventInput[] {
  return order.tickets
    .filter((ticket) => identifiers.includes(ticket.identifier))
    .map((ticket) => ({ type, data: { ...ticket, order_id: order.id }, affiliateCode: order.affiliate_code, orderingKey: order.id }))
}
