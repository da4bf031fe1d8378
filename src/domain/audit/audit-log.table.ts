import { index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'

/**
 * Who changed what, when: one row per change, written in the change's own transaction.
 * `action` is dotted, e.g. `iam.user.created`, `adm.api_key.revoked`, `stf.order.placed`.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: uuid().primaryKey().defaultRandom(),
    action: text().notNull(),
    /** `staff`, `customer`, `seller` (an API key) or `system`. */
    actorType: text().notNull(),
    actorId: uuid(),
    targetType: text().notNull(),
    targetId: uuid(),
    /** The tenant the change belongs to, when it belongs to one. */
    sellerId: uuid(),
    data: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    traceId: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('audit_log_target_idx').on(t.targetType, t.targetId), index('audit_log_seller_idx').on(t.sellerId, t.createdAt)],
)
