import { sql } from 'drizzle-orm'
import { bigint, check, customType, date, index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { sellerIdColumn } from '../sellers/sellers.table.js'

/** What an export lists, and how it is written (docs/reports.md). */
export const EXPORT_TYPES = ['orders', 'tickets', 'checkins', 'transactions'] as const
export type ExportType = (typeof EXPORT_TYPES)[number]
export const EXPORT_FORMATS = ['csv', 'csv_br', 'json'] as const
export type ExportFormat = (typeof EXPORT_FORMATS)[number]
export const EXPORT_STATUSES = ['running', 'done', 'failed'] as const
export type ExportStatus = (typeof EXPORT_STATUSES)[number]

const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => Buffer.from(value),
})

/**
 * An export of a seller's records, written in the background: `running` while a process writes
 * it (and renews `heartbeat_at`), then `done` with its rows and sha256, or `failed`. A running
 * export whose heartbeat stopped (its process died) is failed by the next sweep, never left half
 * written and called done. Its file is kept in `export_chunks`, so that any replica serves it.
 */
export const exportsTable = pgTable(
  'exports',
  {
    id: uuid().primaryKey().defaultRandom(),
    sellerId: sellerIdColumn(),
    type: text({ enum: EXPORT_TYPES }).notNull(),
    format: text({ enum: EXPORT_FORMATS }).notNull(),
    /** The filters asked for: dates in the seller's time zone, `[from, to)`; an event. */
    fromDate: date({ mode: 'string' }),
    toDate: date({ mode: 'string' }),
    eventId: uuid(),
    status: text({ enum: EXPORT_STATUSES }).notNull().default('running'),
    progress: integer().notNull().default(0),
    rows: integer(),
    bytes: bigint({ mode: 'number' }),
    sha256: text(),
    error: text(),
    heartbeatAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp({ withTimezone: true }),
    expiresAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('exports_seller_created_idx').on(t.sellerId, t.createdAt),
    // What the sweep and the per-seller limit read: the running exports.
    index('exports_running_idx').on(t.sellerId).where(sql`${t.status} = 'running'`),
    check('exports_status_check', sql`${t.status} in ('running', 'done', 'failed')`),
    check('exports_progress_check', sql`${t.progress} between 0 and 100`),
  ],
)

/** An export's file, in pieces written in order as it streams out of the database. */
export const exportChunks = pgTable(
  'export_chunks',
  {
    exportId: uuid()
      .notNull()
      .references(() => exportsTable.id, { onDelete: 'cascade' }),
    seq: integer().notNull(),
    data: bytea().notNull(),
  },
  (t) => [primaryKey({ columns: [t.exportId, t.seq] })],
)
