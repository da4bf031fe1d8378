import autocannon from 'autocannon'
import { REQUEST_TIMEOUT_S, type Row } from './load.js'

export type Buyer = { token: string }

/** An order a flash sale's checkout placed, as it answered it: its status, what it owes in all (centavos) and its tickets. */
export type PlacedOrder = { id: string; status: string; total: number; tickets: number }

/** Tickets wanted by buyer n: 1 to 4, the same sequence for the checkout flow and the raw loop. */
export const quantityOf = (n: number) => 1 + (((n * 2_654_435_761) >>> 0) % 4)

export type FlashOutcome = {
  row: Row
  buyers: number
  /** Wall time from the first request to the last buyer's last answer. */
  elapsedMs: number
  /** When the last ticket sale was answered, from the start. */
  lastSaleMs: number
  sales: number
  ticketsSold: number
  /** Refusals by what was refused and how, e.g. `basket 409 insufficient_inventory`. */
  refusals: Record<string, number>
  /** Answers that are neither a success nor an expected refusal, and lost requests. */
  unexpected: Record<string, number>
  finished: boolean
  /** The buyers who bought, as they felt it: from their first request to their sale's answer (basket + checkout). */
  winners: { count: number; p50: number; p99: number; checkoutP50: number; checkoutP99: number }
}

type Tally = Pick<FlashOutcome, 'buyers' | 'lastSaleMs' | 'sales' | 'ticketsSold' | 'refusals' | 'unexpected'>

const codeOf = (body: string) => {
  try {
    return (JSON.parse(body) as { code?: string }).code ?? '?'
  } catch {
    return '?'
  }
}

const bump = (map: Record<string, number>, key: string) => {
  map[key] = (map[key] ?? 0) + 1
}

type Ctx = { buyer: number; basketId: string | null; sentAt: number; startedAt: number; idle: boolean }
type Step = {
  /** The request for this buyer, or null to skip this step and the ones after it. */
  build: (ctx: Ctx) => { method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: string } | null
  /** Reads the answer; true when the buyer is done. */
  handle: (status: number, body: string, ctx: Ctx, t: Tally, sinceStart: number) => boolean
}

/** The p-th percentile of ascending values (0 when there are none). */
export const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

/** Where the buyers are driven: the base URLs of the servers, the connections in all, a time limit and the number of buyers. */
export type DriveOptions = { baseUrls: readonly string[]; connections: number; maxSeconds: number; buyers: number }

/**
 * `total` connections over `targets` targets, as evenly as they go: the first `total % targets`
 * get one more. A target left with none gets no entry (fewer connections than targets).
 */
export const spreadConnections = (total: number, targets: number): number[] =>
  Array.from({ length: Math.min(total, targets) }, (_, i) => Math.floor(total / targets) + (i < total % targets ? 1 : 0))

/**
 * Drives `buyers` buyers, each through `steps` in turn, over autocannon's connections (a
 * connection takes the next buyer when its current one is done) and stops once every buyer is
 * done. A connection left without a buyer waits on `/bench/idle`. Latencies are those of the
 * buyers' requests only.
 *
 * With several base URLs (several servers over one database), one autocannon instance loads each,
 * the connections spread between them (`spreadConnections`); the instances take their buyers from
 * one counter and share one tally, so the outcome is that of one sale whichever server answered.
 * Every instance is stopped once the last buyer is done; the outcome is answered when all have ended.
 */
function driveBuyers(options: DriveOptions, steps: Step[]): Promise<FlashOutcome> {
  const { buyers } = options
  if (options.baseUrls.length === 0) throw new Error('driveBuyers: no base URL')
  const t: Tally = { buyers, lastSaleMs: 0, sales: 0, ticketsSold: 0, refusals: {}, unexpected: {} }
  const latencies: number[] = []
  const winners: number[] = []
  const checkouts: number[] = []
  let next = 0
  let done = 0
  let elapsedMs = 0
  const instances: autocannon.Instance[] = []
  const started = performance.now()
  const finishOne = () => {
    done++
    if (done === buyers) {
      elapsedMs = performance.now() - started
      for (const instance of instances) instance.stop()
    }
  }
  const requestsOf = (): autocannon.Request[] =>
    steps.map((step, index) => ({
      setupRequest: (request: autocannon.Request, context: object) => {
        const ctx = context as Ctx
        if (index === 0) {
          // autocannon starts every pass of the steps with a fresh context.
          ctx.buyer = next++
          ctx.basketId = null
          ctx.idle = ctx.buyer >= buyers
        }
        const built = ctx.idle ? (index === 0 ? { method: 'GET' as const, path: '/bench/idle' } : null) : step.build(ctx)
        if (!built) return undefined as unknown as autocannon.Request
        ctx.sentAt = performance.now()
        if (index === 0) ctx.startedAt = ctx.sentAt
        return { ...request, ...built, headers: { ...built.headers } }
      },
      onResponse: (status: number, body: string, context: object) => {
        const ctx = context as Ctx
        if (ctx.idle) return
        const now = performance.now()
        latencies.push(now - ctx.sentAt)
        const salesBefore = t.sales
        const buyerDone = step.handle(status, String(body), ctx, t, now - started)
        if (t.sales > salesBefore) {
          winners.push(now - ctx.startedAt)
          checkouts.push(now - ctx.sentAt)
        }
        if (buyerDone) {
          ctx.idle = index < steps.length - 1 // the steps after this one are skipped
          if (ctx.idle) ctx.basketId = null
          finishOne()
        }
      },
    }))
  const connections = spreadConnections(options.connections, options.baseUrls.length)
  const results = connections.map(
    (count, i) =>
      new Promise<autocannon.Result>((resolve, reject) => {
        const settings = { url: options.baseUrls[i]!, connections: count, duration: options.maxSeconds, timeout: REQUEST_TIMEOUT_S, requests: requestsOf() }
        const instance = autocannon(settings, (error, result) => (error ? reject(error) : resolve(result)))
        instances.push(instance)
        // A request that timed out or lost its connection gets no answer: its buyer is done, the run broken.
        instance.on('reqError', () => {
          bump(t.unexpected, 'lost: timeout or connection error')
          finishOne()
        })
      }),
  )
  return Promise.all(results).then(
    (ended) => {
      const finished = done >= buyers && !t.unexpected['lost: timeout or connection error']
      const total = finished ? elapsedMs : performance.now() - started
      latencies.sort((a, b) => a - b)
      winners.sort((a, b) => a - b)
      checkouts.sort((a, b) => a - b)
      const buyerRequests = latencies.length
      const ms = (value: number) => Math.round(value * 10) / 10
      const sum = (f: (result: autocannon.Result) => number) => ended.reduce((n, result) => n + f(result), 0)
      return {
        ...t,
        elapsedMs: total,
        finished,
        winners: {
          count: winners.length,
          p50: ms(percentile(winners, 50)),
          p99: ms(percentile(winners, 99)),
          checkoutP50: ms(percentile(checkouts, 50)),
          checkoutP99: ms(percentile(checkouts, 99)),
        },
        row: {
          scenario: '',
          rps: Math.round(buyerRequests / (total / 1000)),
          p50: ms(percentile(latencies, 50)),
          p99: ms(percentile(latencies, 99)),
          requests: buyerRequests,
          errors: sum((result) => result.errors + result.timeouts),
          non2xx: sum((result) => result.non2xx),
          '5xx': sum((result) => result['5xx']),
        },
      }
    },
    (error: unknown) => {
      // One instance failed: the others are not left running.
      for (const instance of instances) instance.stop()
      throw error
    },
  )
}

/**
 * The flash sale through the API: each buyer opens a basket of 1–4 tickets of one inventory (or of one of `inventoryIds`, by turns)
 * (with the access token of one of the pre-created customers, by turns) and, when that
 * succeeds, checks it out. A buyer refused at either step is done. On a seated inventory the
 * same request asks for best-available seats (no `seats` named: the server picks them).
 */
export function flashSale(
  options: DriveOptions & {
    inventoryId: string
    /** The inventories buyer n takes from by turns (n modulo their number), instead of `inventoryId` alone. */
    inventoryIds?: readonly string[]
    authorization: string
    customers: Buyer[]
    /** Tickets wanted by buyer n (default `quantityOf`: 1–4). */
    quantity?: (n: number) => number
    /** The error codes of a 409 that count as a refusal, not as an unexpected answer (default `insufficient_inventory`). */
    refusals?: readonly string[]
    /** More of the checkout's body than `payment_method: "pix"`, e.g. `{await_payment: true}` (docs/payments.md). */
    checkout?: Record<string, unknown>
    /** Hears each order placed, as its checkout answered it. */
    onOrder?: (order: PlacedOrder) => void
  },
): Promise<FlashOutcome> {
  const quantity = options.quantity ?? quantityOf
  const refused = new Set((options.refusals ?? ['insufficient_inventory']).flatMap((code) => [`basket 409 ${code}`, `checkout 409 ${code}`]))
  const inventoryIds = options.inventoryIds ?? [options.inventoryId]
  const checkoutBody = JSON.stringify({ payment_method: 'pix', ...options.checkout })
  const headersOf = (ctx: Ctx) => ({
    authorization: options.authorization,
    'content-type': 'application/json',
    'x-customer-token': options.customers[ctx.buyer % options.customers.length]!.token,
  })
  return driveBuyers(options, [
    {
      build: (ctx) => ({
        method: 'POST',
        path: '/stf/v1/baskets',
        headers: headersOf(ctx),
        body: JSON.stringify({ items: [{ inventory_id: inventoryIds[ctx.buyer % inventoryIds.length], quantity: quantity(ctx.buyer) }] }),
      }),
      handle: (status, body, ctx, t) => {
        if (status === 201) {
          ctx.basketId = (JSON.parse(body) as { id: string }).id
          return false
        }
        const key = `basket ${status} ${codeOf(body)}`
        bump(refused.has(key) ? t.refusals : t.unexpected, key)
        return true
      },
    },
    {
      build: (ctx) => ({
        method: 'POST',
        path: `/stf/v1/baskets/${ctx.basketId}/checkout`,
        headers: headersOf(ctx),
        body: checkoutBody,
      }),
      handle: (status, body, _ctx, t, sinceStart) => {
        if (status === 201) {
          const order = JSON.parse(body) as { id: string; status: string; totals: { total: number }; tickets: unknown[] }
          t.sales++
          t.ticketsSold += order.tickets.length
          t.lastSaleMs = sinceStart
          options.onOrder?.({ id: order.id, status: order.status, total: order.totals.total, tickets: order.tickets.length })
        } else {
          const key = `checkout ${status} ${codeOf(body)}`
          bump(refused.has(key) ? t.refusals : t.unexpected, key)
        }
        return true
      },
    },
  ])
}

/**
 * The limit: the same buyers (same quantities, same connections) each running only the raw
 * conditional UPDATE, through a bench route and the server's pool.
 */
export function rawSale(options: DriveOptions & { inventoryId: string }): Promise<FlashOutcome> {
  return driveBuyers(options, [
    {
      build: (ctx) => ({
        method: 'POST',
        path: '/bench/raw-sell',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ inventory_id: options.inventoryId, quantity: quantityOf(ctx.buyer) }),
      }),
      handle: (status, body, ctx, t, sinceStart) => {
        if (status !== 200) bump(t.unexpected, `${status} ${codeOf(body)}`)
        else if ((JSON.parse(body) as { sold: boolean }).sold) {
          t.sales++
          t.ticketsSold += quantityOf(ctx.buyer)
          t.lastSaleMs = sinceStart
        } else bump(t.refusals, 'not sold')
        return true
      },
    },
  ])
}
