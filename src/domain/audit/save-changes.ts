import type { Db } from '../../platform/db/database.js'
import { recordAudit, type AuditActor } from './record-audit.js'

export type SaveChangesOptions<Row, Values> = {
  /** The seller's row as it stands, locked by the caller's transaction. */
  current: Row
  /** Only the columns that change. */
  values: Values
  /** The repository's update, which answers the row as written. */
  update: (db: Db, id: string, values: Values) => Promise<Row | undefined>
  actor: AuditActor
  /** The audit action, e.g. `adm.event.updated`, and the type of its target. */
  action: string
  target: string
  /** What else the audit entry records besides the changed fields. */
  data?: Record<string, unknown>
}

/**
 * Writes the changed columns of a seller's row and records the change, naming the fields as the
 * API spells them (`integration_id`). When nothing changes it writes nothing, records nothing and
 * answers the row as it stands.
 */
export async function saveChanges<Row extends { id: string; sellerId: string }, Values extends object>(
  tx: Db,
  { current, values, update, actor, action, target, data }: SaveChangesOptions<Row, Values>,
): Promise<Row> {
  const fields = Object.keys(values).map((key) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`))
  if (fields.length === 0) return current
  const row = await update(tx, current.id, values)
  await recordAudit(tx, actor, { action, target: { type: target, id: current.id }, sellerId: current.sellerId, data: { fields, ...data } })
  return row!
}
