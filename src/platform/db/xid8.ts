import { customType } from 'drizzle-orm/pg-core'

/**
 * A transaction id (PostgreSQL's 64-bit `xid8`), as a decimal string. A column defaulting to
 * `pg_current_xact_id()` orders rows by the transaction that wrote them; read only below
 * `pg_snapshot_xmin(pg_current_snapshot())`, a listing never passes a row that commits later.
 */
export const xid8 = customType<{ data: string; driverData: string }>({ dataType: () => 'xid8' })
