import { Agent } from 'node:http'
import pg from 'pg'
import { percentile } from './flash.js'
import { send, type Answer } from './http.js'

const codeOf = (answer: Answer) => {
  try {
    return (JSON.parse(answer.body) as { code?: string }).code ?? '?'
  } catch {
    return '?'
  }
}

type Seat = { id: string; row: string; number: string }
/** A hold as its buyer got it: the answer's status (0: none) and code, its time, and on success the basket and its seats. */
export type HoldAnswer = { status: number; code: string | null; ms: number; basketId: string | null; seats: Seat[] }

export type StadiumClient = { baseUrl: string; authorization: string; customers: { token: string }[] }

const headersOf = (client: StadiumClient, n: number) => ({
  authorization: client.authorization,
  'x-customer-token': client.customers[n % client.customers.length]!.token,
})

/**
 * `count` best-available holds of `quantity` seats of one inventory sent at once, each on a
 * connection of its own opened beforehand (a keep-alive agent warmed by as many concurrent pings),
 * so that each answer's time is the hold's, not a TCP handshake's. Answers each buyer's answer, in
 * the order sent.
 */
export async function concurrentHolds(client: StadiumClient, inventoryId: string, count: number, quantity: number, first = 0): Promise<HoldAnswer[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: count })
  try {
    await Promise.all(Array.from({ length: count }, () => send(agent, 'GET', `${client.baseUrl}/bench/ping`, {})))
    const body = JSON.stringify({ items: [{ inventory_id: inventoryId, quantity }] })
    const answers = await Promise.all(
      Array.from({ length: count }, (_, n) => send(agent, 'POST', `${client.baseUrl}/stf/v1/baskets`, headersOf(client, first + n), body)),
    )
    return answers.map((answer) => {
      if (answer.status !== 201) return { status: answer.status, code: codeOf(answer), ms: answer.ms, basketId: null, seats: [] }
      const basket = JSON.parse(answer.body) as { id: string; items: { inventory_id: string; seats: Seat[] | null }[] }
      const seats = basket.items.find((item) => item.inventory_id === inventoryId)?.seats ?? []
      return { status: 201, code: null, ms: answer.ms, basketId: basket.id, seats: seats.map(({ id, row, number }) => ({ id, row, number })) }
    })
  } finally {
    agent.destroy()
  }
}

/** Checks the held baskets out through the API, `concurrency` at a time (customer n's token for basket n, as it was opened): each answer's status and time. */
export async function checkOutAll(client: StadiumClient, basketIds: readonly (string | null)[], concurrency: number, first = 0) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
  const answers: { status: number; ms: number; tickets: number }[] = []
  let next = 0
  const lane = async () => {
    while (next < basketIds.length) {
      const n = next++
      const id = basketIds[n]
      if (!id) continue
      const answer = await send(
        agent,
        'POST',
        `${client.baseUrl}/stf/v1/baskets/${id}/checkout`,
        headersOf(client, first + n),
        JSON.stringify({ payment_method: 'pix' }),
      )
      answers.push({
        status: answer.status,
        ms: answer.ms,
        tickets: answer.status === 201 ? (JSON.parse(answer.body) as { tickets: unknown[] }).tickets.length : 0,
      })
    }
  }
  try {
    await Promise.all(Array.from({ length: concurrency }, lane))
  } finally {
    agent.destroy()
  }
  return answers
}

/** Whether a hold's seats are `quantity` seats side by side in one row (gridPlan numbers seats 1, 2, … left to right, no aisle). */
export const sideBySide = (seats: readonly Seat[], quantity: number) => {
  if (seats.length !== quantity) return false
  const numbers = seats.map((seat) => Number(seat.number)).sort((a, b) => a - b)
  return seats.every((seat) => seat.row === seats[0]!.row) && numbers.every((n, i) => i === 0 || n === numbers[i - 1]! + 1)
}

/** Latencies in ms: p50, p99, max, rounded to 0.1 ms. */
export const latencyOf = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const ms = (value: number) => Math.round(value * 10) / 10
  return { p50: ms(percentile(sorted, 50)), p99: ms(percentile(sorted, 99)), max: ms(sorted.at(-1) ?? 0) }
}

/**
 * A statement as auto_explain reported it: its text, its execution time, its plan (JSON), and
 * whether it ran inside another (a PL/pgSQL function's statement) rather than as sent by the app.
 */
export type ExplainedStatement = { text: string; ms: number; plan: unknown; nested: boolean }

/**
 * The database time of one best-available hold on PostgreSQL, as auto_explain measures it: an
 * app of the product's (the benchmark's server, `buildBenchApp`) is built in this process over
 * the benchmark's database, its connections opened with auto_explain loaded and set to report
 * every statement (its execution time, and its plan with the rows and buffers each node read:
 * ANALYZE without per-node timing, which would cost more than the statement), those run inside
 * a function too, as a NOTICE, which is collected here. Each hold is one POST /stf/v1/baskets of
 * `quantity` best available, sent through `app.inject` with nothing else running on that app; its
 * database time is the sum of the execution times of the statements it sent (the take, and
 * around it the basket's writes and readings): a statement whose text the app did not send ran
 * inside one that it did, whose time includes it (`nested`). `holds` of them, one after another; every basket is then checked out (by the same
 * app), so that nothing stays held. Planning is not counted: each statement is planned once per
 * connection (plan_cache_mode, prepared statements).
 */
export async function explainHolds(options: {
  env: Record<string, string>
  databaseUrl: string
  authorization: string
  customers: { token: string }[]
  inventoryId: string
  quantity: number
  holds: number
}) {
  const url = new URL(options.databaseUrl)
  url.searchParams.set(
    'options',
    [
      'session_preload_libraries=auto_explain',
      'auto_explain.log_min_duration=0',
      'auto_explain.log_analyze=on',
      'auto_explain.log_timing=off',
      'auto_explain.log_buffers=on',
      'auto_explain.log_nested_statements=on',
      'auto_explain.log_format=json',
      'auto_explain.log_level=notice',
      'client_min_messages=notice',
    ]
      .map((setting) => `-c ${setting}`)
      .join(' '),
  )
  let recording: Omit<ExplainedStatement, 'nested'>[] | null = null
  /** The texts of the statements the app sent while recording. */
  const sent = new Set<string>()
  const onNotice = (notice: { message?: string }) => {
    const message = notice.message ?? ''
    const match = /^duration: ([\d.]+) ms\s+plan:\s*([\s\S]*)$/.exec(message)
    if (!recording || !match) return
    let plan: unknown = match[2]
    try {
      plan = JSON.parse(match[2]!)
    } catch {
      // kept as text
    }
    const text = (plan as { 'Query Text'?: string })?.['Query Text'] ?? ''
    recording.push({ text, ms: Number(match[1]), plan })
  }
  // Every client of this process from now on hears its notices (the app's pool makes its own),
  // and what it sends is noted while recording.
  const connect = pg.Client.prototype.connect
  pg.Client.prototype.connect = function (this: pg.Client, ...args: unknown[]) {
    this.on('notice', onNotice)
    return (connect as (...a: unknown[]) => unknown).apply(this, args)
  } as never
  const query = pg.Client.prototype.query
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string } | undefined
    const text = typeof first === 'string' ? first : first?.text
    if (recording && typeof text === 'string') sent.add(text)
    return (query as (...a: unknown[]) => unknown).apply(this, args)
  } as never
  const [{ buildBenchApp }, { loadConfig }] = await Promise.all([import('../server/app.js'), import('../../src/platform/config.js')])
  const app = await buildBenchApp({ config: loadConfig({ ...options.env, LOG_LEVEL: 'warn', DATABASE_URL: url.toString() }), startWorkers: false })
  const measured: { ms: number; statements: ExplainedStatement[]; status: number }[] = []
  const baskets: { id: string; customer: number }[] = []
  try {
    for (let n = 0; n < options.holds; n++) {
      const headers = { authorization: options.authorization, 'x-customer-token': options.customers[n % options.customers.length]!.token }
      recording = []
      sent.clear()
      const answer = await app.inject({
        method: 'POST',
        url: '/stf/v1/baskets',
        headers,
        payload: { items: [{ inventory_id: options.inventoryId, quantity: options.quantity }] },
      })
      const statements = recording.map((one) => ({ ...one, nested: !sent.has(one.text) }))
      recording = null
      if (answer.statusCode === 201) baskets.push({ id: (answer.json() as { id: string }).id, customer: n })
      const ms = statements.filter((one) => !one.nested).reduce((sum, one) => sum + one.ms, 0)
      measured.push({ ms, statements, status: answer.statusCode })
    }
    const checkouts = []
    for (const basket of baskets) {
      const answer = await app.inject({
        method: 'POST',
        url: `/stf/v1/baskets/${basket.id}/checkout`,
        headers: { authorization: options.authorization, 'x-customer-token': options.customers[basket.customer % options.customers.length]!.token },
        payload: { payment_method: 'pix' },
      })
      checkouts.push(answer.statusCode)
    }
    return { measured, checkouts, tickets: baskets.length * options.quantity }
  } finally {
    await app.close()
    pg.Client.prototype.connect = connect
    pg.Client.prototype.query = query
  }
}
