/**
 * `node --import tsx bench/explain.ts [-- --write]`: the query plans behind the benchmark's
 * routes. Builds the app in this process on the benchmark's data (embedded database in a
 * temporary folder, or a fresh database on the server of DATABASE_URL), records every statement
 * that one request of each scenario sends to the driver, and prints `EXPLAIN (ANALYZE, BUFFERS)`
 * of each. SELECTs are explained as they are; with `--write` the writes are too, each in a
 * transaction that is rolled back (a write that depended on an earlier one of the same request
 * may then fail: its error is printed instead).
 *
 * The last scenario is not a request: one pass of the expiry sweep (docs/payments.md, the outbox
 * channel `order_expiry`) over 200 orders awaiting payment made due, its statements grouped by
 * text (a loop over the orders sends the same one many times), each group with its count and the
 * time its statements took, as the driver waited for them, and explained once. Its writes have
 * committed by then: the plans of `--write` read the rows as the sweep left them.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import type { InjectOptions } from 'fastify'
import { buildBenchApp } from './server/app.js'
import type { BenchSeed } from './server/seed-bench.js'
import type { PaymentsSeed } from './server/seed-payments.js'
import { loadConfig } from '../src/platform/config.js'
import { createDatabase } from './lib/server.js'

/** A statement as sent, and how long the driver waited for its answer (ms; undefined: no answer yet). */
type Statement = { text: string; values: unknown[]; ms?: number }
let recording: Statement[] | null = null
type Runner = (text: string, values?: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>
let runner: Runner | undefined

// Record at the driver: whatever the ORM builds is what the database is asked.
const pgQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const [first, second] = args as [string | { text: string; values?: unknown[] }, unknown[] | undefined]
  const text = typeof first === 'string' ? first : first?.text
  if (!recording || typeof text !== 'string') return pgQuery.apply(this, args)
  // drizzle passes a config object and its parameters beside it.
  const statement: Statement = { text, values: (typeof first === 'string' ? second : (first.values ?? second)) ?? [] }
  recording.push(statement)
  const started = performance.now()
  const answered = pgQuery.apply(this, args)
  if (answered instanceof Promise) {
    const timed = () => {
      statement.ms = performance.now() - started
    }
    answered.then(timed, timed)
  }
  return answered
} as never
const pgliteQuery = PGlite.prototype.query
PGlite.prototype.query = function (this: PGlite, text: string, values?: unknown[], options?: never) {
  runner ??= (t, v) => pgliteQuery.call(this, t, v) as never
  if (recording) recording.push({ text, values: values ?? [] })
  return pgliteQuery.call(this, text, values, options)
} as never
const pgliteTransaction = PGlite.prototype.transaction
PGlite.prototype.transaction = function (this: PGlite, callback: (tx: never) => Promise<unknown>) {
  return pgliteTransaction.call(this, (tx) => {
    const query = tx.query.bind(tx)
    tx.query = ((text: string, values?: unknown[], options?: never) => {
      if (recording) recording.push({ text, values: values ?? [] })
      return query(text, values, options)
    }) as typeof tx.query
    return callback(tx as never)
  })
} as never

const withWrites = process.argv.includes('--write')
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'boxoffice-explain-'))
const database = process.env.DATABASE_URL ? await createDatabase(process.env.DATABASE_URL) : undefined
const config = loadConfig({
  LOG_LEVEL: 'warn',
  SEED_DEMO: 'false',
  DATA_DIR: dataDir,
  JWT_SECRET: 'bench-secret-that-is-at-least-32-characters-long',
  ...(database ? { DATABASE_URL: database.url } : {}),
})
const app = await buildBenchApp({ config, startWorkers: false })
const pool = database ? new pg.Pool({ connectionString: database.url, max: 1 }) : undefined
const run: Runner = async (text, values) => (pool ? pool.query(text, values as unknown[]) : runner!(text, values))

/** Runs `work`, recording every statement it sends to the driver. */
async function record<T>(work: () => Promise<T>): Promise<{ result: T; statements: Statement[] }> {
  recording = []
  try {
    return { result: await work(), statements: recording }
  } finally {
    recording = null
  }
}

async function explain(title: string, request: InjectOptions) {
  const { result: response, statements } = await record(() => app.inject(request))
  console.log(`\n=== ${title} → ${response.statusCode} (${statements.length} statements)`)
  await explainEach(statements)
  return response
}

/**
 * Work that is not a request (a pass of a background channel): its statements grouped by text,
 * the groups in the order they were first sent, each with its count and time, and explained once
 * (with the first one's parameters).
 */
async function explainWork(title: string, work: () => Promise<unknown>) {
  const started = performance.now()
  const { result, statements } = await record(work)
  const wallMs = performance.now() - started
  const groups = new Map<string, Statement[]>()
  for (const s of statements) groups.set(s.text, [...(groups.get(s.text) ?? []), s])
  const ms = (list: Statement[]) => list.reduce((sum, s) => sum + (s.ms ?? 0), 0)
  console.log(
    `\n=== ${title} → ${JSON.stringify(result)}: ${statements.length} statements, ${groups.size} distinct, ${ms(statements).toFixed(1)} ms waited for in ${wallMs.toFixed(1)} ms`,
  )
  for (const [text, list] of groups) console.log(`-- × ${list.length}, ${ms(list).toFixed(1)} ms: ${text.replace(/\s+/g, ' ').slice(0, 140)}`)
  await explainEach([...groups.values()].map((list) => list[0]!))
}

/** Each statement with its plan (SELECTs; with `--write` the writes too, in a transaction rolled back). */
async function explainEach(statements: Statement[]) {
  for (const s of statements) {
    const isRead = /^\s*(select|with)\b/i.test(s.text) && !/for update/i.test(s.text)
    if (/^\s*(begin|commit|rollback|savepoint|release)\b/i.test(s.text)) {
      console.log(`-- ${s.text.trim()}`)
      continue
    }
    console.log(`\n-- ${s.text}${s.values.length ? `\n-- params: ${JSON.stringify(s.values)}` : ''}`)
    if (!isRead && !withWrites) {
      console.log('   (a write or a lock: --write explains it in a rolled-back transaction)')
      continue
    }
    try {
      await run('begin')
      const plan = await run(`explain (analyze, buffers, costs off) ${s.text}`, s.values)
      console.log(plan.rows.map((r) => `   ${String(Object.values(r)[0])}`).join('\n'))
    } catch (error) {
      console.log(`   (not explained: ${(error as Error).message})`)
    } finally {
      await run('rollback').catch(() => undefined)
    }
  }
}

try {
  const seed = (await app.inject({ method: 'POST', url: '/bench/seed', payload: { flash_capacity: 1000, customers: 4 } })).json() as BenchSeed
  const authorization = `Basic ${Buffer.from(`${seed.sellerId}:${seed.apiKey}`).toString('base64')}`
  // Some open baskets on the first inventories, as after the basket-write scenario.
  for (let n = 0; n < 200; n++) {
    await app.inject({
      method: 'POST',
      url: '/stf/v1/baskets',
      headers: { authorization },
      payload: { items: [{ inventory_id: seed.ampleInventoryIds[n % 20]!, quantity: 1 }] },
    })
  }
  await app.inject({ method: 'GET', url: '/stf/v1/events', headers: { authorization } })
  await explain('GET /bench/events (baseline)', { method: 'GET', url: `/bench/events?seller_id=${seed.sellerId}&page=1&limit=20` })
  await explain('GET /stf/v1/events', { method: 'GET', url: '/stf/v1/events?page=1&limit=20', headers: { authorization } })
  const created = await explain('POST /stf/v1/baskets (2 items)', {
    method: 'POST',
    url: '/stf/v1/baskets',
    headers: { authorization },
    payload: {
      items: [
        { inventory_id: seed.ampleInventoryIds[0]!, quantity: 1 },
        { inventory_id: seed.ampleInventoryIds[1]!, quantity: 2 },
      ],
    },
  })
  const basket = created.json() as { id: string }
  await explain('PATCH /stf/v1/baskets/:id/items', {
    method: 'PATCH',
    url: `/stf/v1/baskets/${basket.id}/items`,
    headers: { authorization },
    payload: { items: [{ inventory_id: seed.ampleInventoryIds[0]!, quantity: 3 }] },
  })
  const customer = { authorization, 'x-customer-token': seed.customers[0]!.token }
  const flash = await app.inject({
    method: 'POST',
    url: '/stf/v1/baskets',
    headers: customer,
    payload: { items: [{ inventory_id: seed.flash.sale, quantity: 2 }] },
  })
  await explain('POST /stf/v1/baskets/:id/checkout', {
    method: 'POST',
    url: `/stf/v1/baskets/${(flash.json() as { id: string }).id}/checkout`,
    headers: customer,
    payload: { payment_method: 'pix' },
  })

  // The expiry sweep: 200 orders of 2 awaiting payment, made due, then one pass of the outbox channel.
  const payments = (
    await app.inject({ method: 'POST', url: '/bench/payments/seed', payload: { seller_id: seed.sellerId, capacity: 10, pending_capacity: 400 } })
  ).json() as PaymentsSeed
  const due: string[] = []
  for (let n = 0; n < 200; n++) {
    const buyer = { authorization, 'x-customer-token': seed.customers[n % seed.customers.length]!.token }
    const held = await app.inject({
      method: 'POST',
      url: '/stf/v1/baskets',
      headers: buyer,
      payload: { items: [{ inventory_id: payments.pending, quantity: 2 }] },
    })
    const order = await app.inject({
      method: 'POST',
      url: `/stf/v1/baskets/${(held.json() as { id: string }).id}/checkout`,
      headers: buyer,
      payload: { payment_method: 'pix', await_payment: true },
    })
    due.push((order.json() as { id: string }).id)
  }
  await app.inject({ method: 'POST', url: '/bench/payments/due', payload: { order_ids: due } })
  await explainWork('the expiry sweep: one pass of order_expiry over 200 orders due (orders expired)', () => app.outbox.runOnce('order_expiry'))
} finally {
  await app.close()
  await pool?.end()
  await database?.drop()
  rmSync(dataDir, { recursive: true, force: true })
}
