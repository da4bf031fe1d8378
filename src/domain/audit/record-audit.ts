import { sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { preparedOn } from '../../platform/db/prepared.js'
import { auditLog } from './audit-log.table.js'

export type AuditActor = { type: 'staff' | 'customer' | 'seller' | 'system'; id?: string | null; traceId?: string | null }

export type AuditEntry = {
  action: string
  target: { type: string; id?: string | null }
  sellerId?: string | null
  data?: Record<string, unknown>
}

/** Records one change. Pass the transaction of the change so both commit or neither. */
export async function recordAudit(db: Db, actor: AuditActor, entry: AuditEntry): Promise<void> {
  await auditInsert(db, actor, entry).execute()
}

/** The statement `recordAudit` runs, to send with others (`inOrder`). */
export const auditInsert = (db: Db, actor: AuditActor, entry: AuditEntry) => {
  const statement = preparedOn(db, AUDIT_INSERT, prepareAuditInsert)
  const values = {
    action: entry.action,
    actorType: actor.type,
    actorId: actor.id ?? null,
    targetType: entry.target.type,
    targetId: entry.target.id ?? null,
    sellerId: entry.sellerId ?? null,
    data: entry.data ?? {},
    traceId: actor.traceId ?? null,
  }
  return { execute: () => statement.execute(values) }
}

const AUDIT_INSERT = Symbol('audit insert')

/** Written on every change: built once per connection (`preparedOn`). */
const prepareAuditInsert = (db: Db) =>
  db
    .insert(auditLog)
    .values({
      action: sql.placeholder('action'),
      actorType: sql.placeholder('actorType'),
      actorId: sql.placeholder('actorId'),
      targetType: sql.placeholder('targetType'),
      targetId: sql.placeholder('targetId'),
      sellerId: sql.placeholder('sellerId'),
      data: sql.placeholder('data'),
      traceId: sql.placeholder('traceId'),
    })
    .prepare('audit_insert')
