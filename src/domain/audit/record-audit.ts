import type { Db } from '../../platform/db/database.js'
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
  await auditInsert(db, actor, entry)
}

/** The statement `recordAudit` runs, to send with others (`inOrder`). */
export const auditInsert = (db: Db, actor: AuditActor, entry: AuditEntry) =>
  db.insert(auditLog).values({
    action: entry.action,
    actorType: actor.type,
    actorId: actor.id ?? null,
    targetType: entry.target.type,
    targetId: entry.target.id ?? null,
    sellerId: entry.sellerId ?? null,
    data: entry.data ?? {},
    traceId: actor.traceId ?? null,
  })
