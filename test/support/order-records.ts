import { and, asc, eq, like } from 'drizzle-orm'
import type { Db } from '../../src/platform/db/database.js'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { transactions } from '../../src/domain/payments/payments.table.js'
import { webhookEvents } from '../../src/domain/webhooks/webhooks.table.js'
import { outboxEmails } from '../../src/platform/mail/outbox.table.js'

/** What a change of an order left behind, read from the database: its ledger, its webhook events, its emails, the stock. */

/** The order's ledger rows in the order they were written. */
export const ledgerOf = (db: Db, orderId: string) =>
  db
    .select({ kind: transactions.kind, amount: transactions.amount, tickets: transactions.tickets, refundId: transactions.refundId })
    .from(transactions)
    .where(eq(transactions.orderId, orderId))
    .orderBy(asc(transactions.seq))

/** The types of the order's webhook events, in the order they were written (needs an endpoint of the seller). */
export const webhookTypesOf = async (db: Db, orderId: string) =>
  (await db.select({ type: webhookEvents.type }).from(webhookEvents).where(eq(webhookEvents.orderingKey, orderId)).orderBy(asc(webhookEvents.seq))).map(
    (row) => row.type,
  )

/** The payloads of the order's webhook events of one type. */
export const webhookPayloadsOf = async (db: Db, orderId: string, type: string) =>
  (
    await db
      .select({ payload: webhookEvents.payload })
      .from(webhookEvents)
      .where(and(eq(webhookEvents.orderingKey, orderId), eq(webhookEvents.type, type)))
      .orderBy(asc(webhookEvents.seq))
  ).map((row) => row.payload as Record<string, unknown>)

/** The emails of one kind that speak of the order. */
export const emailsAbout = (db: Db, kind: string, orderId: string) =>
  db
    .select({ to: outboxEmails.to, subject: outboxEmails.subject, text: outboxEmails.text })
    .from(outboxEmails)
    .where(and(eq(outboxEmails.kind, kind), like(outboxEmails.text, `%${orderId}%`)))

/** An inventory's `sold`. */
export const soldOf = async (db: Db, inventoryId: string) =>
  (await db.select({ sold: inventories.sold }).from(inventories).where(eq(inventories.id, inventoryId)))[0]!.sold

/** The audit entries of one action on the order. */
export const auditOf = (db: Db, action: string, orderId: string) =>
  db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, action), eq(auditLog.targetId, orderId)))
