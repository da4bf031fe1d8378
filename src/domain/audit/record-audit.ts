import { type SQL, sql } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import { executeStatement } from '../../platform/db/fixed-statement.js'
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
  const values = columnsOf(actor, entry)
  return { execute: () => statement.execute(values) }
}

/** An entry's columns, by the names of the table's fields. */
const columnsOf = (actor: AuditActor, entry: AuditEntry) => ({
  action: entry.action,
  actorType: actor.type,
  actorId: actor.id ?? null,
  targetType: entry.target.type,
  targetId: entry.target.id ?? null,
  sellerId: entry.sellerId ?? null,
  data: entry.data ?? {},
  traceId: actor.traceId ?? null,
})

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

/**
 * The entries of changes that the transaction may yet have undone (a grouped hold's refused
 * baskets, deleted before the end): ONE statement, that writes each entry only where `exists`
 * (SQL over `e`, the entry, its columns named as the table's fields: e.g. `e."targetId"` still there) holds.
 */
export const auditInsertsWhere = (db: Db, entries: readonly { actor: AuditActor; entry: AuditEntry }[], exists: SQL) => {
  const rows = entries.map(({ actor, entry }) => columnsOf(actor, entry))
  return {
    execute: () =>
      executeStatement(
        db,
        sql`
        insert into audit_log (action, actor_type, actor_id, target_type, target_id, seller_id, data, trace_id)
        select e.action, e."actorType", e."actorId", e."targetType", e."targetId", e."sellerId", e.data, e."traceId"
          from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
            as e(action text, "actorType" text, "actorId" uuid, "targetType" text, "targetId" uuid, "sellerId" uuid, data jsonb, "traceId" text)
         where ${exists}`,
      ),
  }
}
