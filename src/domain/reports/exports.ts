import { createHash } from 'node:crypto'
import { and, asc, eq, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import type { OutboxChannel, OutboxItem } from '../../platform/outbox/worker.js'
import { sellers } from '../sellers/sellers.table.js'
import { recordWebhookEvents } from '../webhooks/webhook-events.js'
import { exportWriter } from './export-format.js'
import { EXPORT_SOURCES, type ExportFilter } from './export-sources.js'
import { exportChunks, type ExportFormat, exportsTable, type ExportType } from './exports.table.js'

/** At most this many exports of one seller run at once (docs/exports.md); one more: 409 `export_running`. */
export const MAX_RUNNING_EXPORTS = 2
/** How long a done export's file is kept. */
export const EXPORT_KEPT_HOURS = 24
/** Rows read per page (keyset, so that memory stays bounded however big the export). */
export const EXPORT_PAGE_ROWS = 2000
/** About how many bytes each stored piece of a file holds. */
export const EXPORT_CHUNK_BYTES = 256 * 1024

export type ExportRow = typeof exportsTable.$inferSelect

/** Export, as the API answers it and webhooks `export.done` and `export.failed` carry it. */
export type ExportView = {
  id: string
  type: ExportType
  format: ExportFormat
  status: ExportRow['status']
  progress: number
  rows: number | null
  sha256: string | null
  expires_at: string | null
  created_at: string
}

export const toExportView = (row: ExportRow): ExportView => ({
  id: row.id,
  type: row.type,
  format: row.format,
  status: row.status,
  progress: row.progress,
  rows: row.rows,
  sha256: row.sha256,
  expires_at: row.expiresAt?.toISOString() ?? null,
  created_at: row.createdAt.toISOString(),
})

export type CreateExportInput = {
  sellerId: string
  type: ExportType
  format: ExportFormat
  from?: string | undefined
  to?: string | undefined
  eventId?: string | undefined
}

/**
 * Records a running export, at most `MAX_RUNNING_EXPORTS` per seller: the seller's row is locked
 * (FOR NO KEY UPDATE: sales referring to the seller go on) while the running ones are counted and
 * the new one inserted, so that exports asked at once are counted one after the other. An
 * unknown seller, or an event not of this seller: 404. The caller starts it (`ExportRunner`).
 */
export async function createExport(db: Db, input: CreateExportInput): Promise<ExportRow> {
  if (input.from && input.to && input.to <= input.from) {
    throw new AppError('validation_error', { details: [{ path: 'to', message: 'must be after from' }] })
  }
  return db.transaction(async (tx) => {
    const seller = await tx.execute(sql`select id from ${sellers} where id = ${input.sellerId}::uuid for no key update`)
    if (seller.rows.length === 0) throw new AppError('not_found')
    if (input.eventId) {
      const event = await tx.execute(sql`select 1 from events where id = ${input.eventId}::uuid and seller_id = ${input.sellerId}::uuid`)
      if (event.rows.length === 0) throw new AppError('not_found', { message: 'The event was not found' })
    }
    const [running] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(exportsTable)
      .where(and(eq(exportsTable.sellerId, input.sellerId), eq(exportsTable.status, 'running')))
    if ((running?.n ?? 0) >= MAX_RUNNING_EXPORTS) throw new AppError('export_running', { details: { running: running?.n ?? 0 } })
    const [row] = await tx
      .insert(exportsTable)
      .values({
        sellerId: input.sellerId,
        type: input.type,
        format: input.format,
        fromDate: input.from ?? null,
        toDate: input.to ?? null,
        eventId: input.eventId ?? null,
      })
      .returning()
    return row!
  })
}

export async function findExport(db: Db, id: string): Promise<ExportRow> {
  const [row] = await db.select().from(exportsTable).where(eq(exportsTable.id, id))
  if (!row) throw new AppError('not_found')
  return row
}

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  csv_br: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
}

/**
 * A done export's file, to be streamed piece by piece (`readChunks`): running 409
 * `export_running`, failed 410 `export_failed`, past `expires_at` (the database's clock) 410
 * `export_expired`.
 */
export async function exportFile(db: Db, id: string): Promise<ExportRow> {
  const [row] = await db
    .select({ row: exportsTable, expired: sql<boolean>`${exportsTable.expiresAt} <= now()` })
    .from(exportsTable)
    .where(eq(exportsTable.id, id))
  if (!row) throw new AppError('not_found')
  if (row.row.status === 'running') throw new AppError('export_running', { details: { progress: row.row.progress } })
  if (row.row.status === 'failed') throw new AppError('export_failed')
  if (row.expired) throw new AppError('export_expired')
  return row.row
}

/** The file's pieces in order, read a few at a time: never the whole file in memory. */
export async function* readChunks(db: Db, id: string): AsyncGenerator<Buffer> {
  let seq = -1
  for (;;) {
    const rows = await db
      .select({ seq: exportChunks.seq, data: exportChunks.data })
      .from(exportChunks)
      .where(and(eq(exportChunks.exportId, id), sql`${exportChunks.seq} > ${seq}`))
      .orderBy(asc(exportChunks.seq))
      .limit(4)
    for (const row of rows) yield row.data
    if (rows.length < 4) return
    seq = rows.at(-1)!.seq
  }
}

/** The run was ended under it: by the sweep (no heartbeat), or by the process closing. */
class ExportAbandoned extends Error {}

/**
 * Writes an export's file (docs/exports.md): reads its rows page by page (keyset), appends them
 * to `export_chunks` in pieces of about `EXPORT_CHUNK_BYTES` as it goes, and renews
 * `heartbeat_at` and `progress` with each piece. At the end, in one transaction: `done` with its
 * rows, bytes, sha256 and `expires_at`, and webhook `export.done`. On error: `failed` and
 * `export.failed`. An export the sweep failed meanwhile (its heartbeat was late) stops, never done.
 */
export async function runExport(db: Db, id: string, options: { stopped?: () => boolean } = {}): Promise<ExportRow> {
  const row = await findExport(db, id)
  try {
    return await writeExport(db, row, options.stopped ?? (() => false))
  } catch (error) {
    const message = error instanceof ExportAbandoned ? error.message : error instanceof Error ? error.message : String(error)
    const failed = await failExport(db, id, message.slice(0, 500))
    if (failed) return failed
    throw error
  }
}

async function writeExport(db: Db, row: ExportRow, stopped: () => boolean): Promise<ExportRow> {
  const [seller] = await db.select({ timezone: sellers.timezone }).from(sellers).where(eq(sellers.id, row.sellerId))
  const timezone = seller?.timezone ?? 'UTC'
  // The seller's days at midnight in its time zone, as instants (epoch ms: no text to parse).
  const bounds = await db.execute<{ from_ms: string | number | null; to_ms: string | number | null }>(
    sql`select extract(epoch from (${row.fromDate}::date::timestamp at time zone ${timezone})) * 1000 as from_ms,
               extract(epoch from (${row.toDate}::date::timestamp at time zone ${timezone})) * 1000 as to_ms`,
  )
  const instant = (ms: string | number | null | undefined) => (ms === null || ms === undefined ? null : new Date(Number(ms)))
  const filter: ExportFilter = {
    sellerId: row.sellerId,
    timezone,
    from: instant(bounds.rows[0]?.from_ms),
    to: instant(bounds.rows[0]?.to_ms),
    eventId: row.eventId,
  }
  const source = EXPORT_SOURCES[row.type]
  const total = await source.count(db, filter)
  const writer = exportWriter(row.format, source.columns)
  const hash = createHash('sha256')
  let bytes = 0
  let seq = 0
  let rows = 0
  let keys = 0
  let pending: string[] = [writer.head()]
  let pendingLength = pending[0]!.length

  const flush = async () => {
    if (pendingLength === 0) return
    const data = Buffer.from(pending.join(''), 'utf8')
    pending = []
    pendingLength = 0
    hash.update(data)
    bytes += data.length
    await db.insert(exportChunks).values({ exportId: row.id, seq: seq++, data })
    await heartbeat()
  }
  const heartbeat = async () => {
    if (stopped()) throw new ExportAbandoned('the server stopped during the export')
    const progress = total === 0 ? 99 : Math.min(99, Math.floor((keys * 100) / total))
    const renewed = await db
      .update(exportsTable)
      .set({ heartbeatAt: sql`now()`, progress })
      .where(and(eq(exportsTable.id, row.id), eq(exportsTable.status, 'running')))
      .returning({ id: exportsTable.id })
    if (renewed.length === 0) throw new ExportAbandoned('the export was ended while it ran')
  }

  let after: string[] | null = null
  do {
    const page = await source.page(db, filter, after, EXPORT_PAGE_ROWS)
    let flushed = false
    for (const values of page.rows) {
      const text = writer.row(values)
      pending.push(text)
      // Characters, not bytes: a piece of mostly ASCII text is about as long in UTF-8.
      pendingLength += text.length
      if (pendingLength >= EXPORT_CHUNK_BYTES) {
        await flush()
        flushed = true
      }
    }
    rows += page.rows.length
    keys += page.keys
    after = page.after
    if (!flushed) await heartbeat()
  } while (after)
  const tail = writer.tail()
  pending.push(tail)
  pendingLength += tail.length
  await flush()
  const sha256 = hash.digest('hex')

  return db.transaction(async (tx) => {
    const [done] = await tx
      .update(exportsTable)
      .set({
        status: 'done',
        progress: 100,
        rows,
        bytes,
        sha256,
        heartbeatAt: sql`now()`,
        finishedAt: sql`now()`,
        expiresAt: sql`now() + make_interval(hours => ${EXPORT_KEPT_HOURS})`,
      })
      .where(and(eq(exportsTable.id, row.id), eq(exportsTable.status, 'running')))
      .returning()
    if (!done) throw new ExportAbandoned('the export was ended while it ran')
    await recordWebhookEvents(tx, done.sellerId, [{ type: 'export.done', data: toExportView(done) }])
    return done
  })
}

/** Ends a running export as failed, with webhook `export.failed`; null when it was not running. */
async function failExport(db: Db, id: string, error: string): Promise<ExportRow | null> {
  return db.transaction(async (tx) => {
    const [failed] = await tx
      .update(exportsTable)
      .set({ status: 'failed', error, finishedAt: sql`now()` })
      .where(and(eq(exportsTable.id, id), eq(exportsTable.status, 'running')))
      .returning()
    if (!failed) return null
    await tx.delete(exportChunks).where(eq(exportChunks.exportId, id))
    await recordWebhookEvents(tx, failed.sellerId, [{ type: 'export.failed', data: toExportView(failed) }])
    return failed
  })
}

/**
 * The sweep (every process, at the outbox's poll): running exports whose heartbeat is older than
 * `staleSeconds` (their process died or hangs) become `failed` with `export.failed`, each locked
 * with SKIP LOCKED and failed in its own transaction; the files of failed exports and of those past
 * `expires_at` are deleted (their rows stay, to answer 410). Answers the exports it failed.
 */
export async function sweepExports(db: Db, staleSeconds: number, limit: number): Promise<string[]> {
  const stale = await db
    .select({ id: exportsTable.id })
    .from(exportsTable)
    .where(and(eq(exportsTable.status, 'running'), sql`${exportsTable.heartbeatAt} < now() - make_interval(secs => ${staleSeconds})`))
    .limit(limit)
  const failed: string[] = []
  for (const { id } of stale) {
    const ended = await db.transaction(async (tx) => {
      const [locked] = await tx
        .execute<{ id: string }>(
          sql`select id from ${exportsTable} where id = ${id}::uuid and status = 'running'
               and heartbeat_at < now() - make_interval(secs => ${staleSeconds}) for update skip locked`,
        )
        .then((r) => r.rows)
      if (!locked) return null
      const [row] = await tx
        .update(exportsTable)
        .set({ status: 'failed', error: 'no heartbeat: the process writing it stopped', finishedAt: sql`now()` })
        .where(eq(exportsTable.id, id))
        .returning()
      await tx.delete(exportChunks).where(eq(exportChunks.exportId, id))
      await recordWebhookEvents(tx, row!.sellerId, [{ type: 'export.failed', data: toExportView(row!) }])
      return row!.id
    })
    if (ended) failed.push(ended)
  }
  await db.execute(sql`
    delete from ${exportChunks} c using ${exportsTable} e
     where c.export_id = e.id and e.status = 'done' and e.expires_at <= now()`)
  return failed
}

/** The sweep as an outbox channel: the worker runs it in every process at its poll interval. */
export function exportSweepChannel(options: { db: Db; staleSeconds: number; logger: Logger }): OutboxChannel<OutboxItem, null> {
  return {
    kind: 'export_sweep',
    batchSize: 100,
    concurrency: 1,
    async claim(limit) {
      const failed = await sweepExports(options.db, options.staleSeconds, limit)
      if (failed.length > 0) options.logger.warn({ exports: failed }, 'exports without a heartbeat failed')
      return failed.map((id) => ({ id, attempts: 1 }))
    },
    send: async () => ({ delivered: true, detail: null }),
    retryInMs: () => null,
    settle: async () => {},
  }
}

/**
 * Runs exports in the background of this process, after their 202 is answered: never in a
 * request. `close()` stops the runs under way (each ends `failed`) and waits for them. `hold()`
 * keeps runs started meanwhile waiting until its release is called (tests see exports running);
 * `settled()` waits for the runs under way.
 */
export function createExportRunner(options: { db: Db; logger: Logger }) {
  const running = new Set<Promise<unknown>>()
  let closing = false
  let held: Promise<void> | null = null
  let releaseHeld: (() => void) | null = null
  return {
    start(id: string) {
      const gate = held ?? Promise.resolve()
      const run = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => gate)
        .then(() => runExport(options.db, id, { stopped: () => closing }))
        .then(
          (row) => options.logger.info({ export: id, status: row.status, rows: row.rows, bytes: row.bytes }, 'export ended'),
          (error: unknown) => options.logger.warn({ err: error, export: id }, 'export ended under its run'),
        )
        .finally(() => running.delete(run))
      running.add(run)
    },
    hold(): () => void {
      held = new Promise<void>((resolve) => {
        releaseHeld = () => {
          held = null
          releaseHeld = null
          resolve()
        }
      })
      return releaseHeld!
    },
    async settled() {
      await Promise.allSettled([...running])
    },
    async close() {
      closing = true
      releaseHeld?.()
      await Promise.allSettled([...running])
    },
  }
}

export type ExportRunner = ReturnType<typeof createExportRunner>
