import { Agent } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { percentile } from './flash.js'
import { send } from './http.js'
import type { Row } from './load.js'

/** A ticket as a gate sees it: its identifier and the signed code its QR holds; and the order it is in. */
export type Ticket = { identifier: string; code: string; orderId: string }

/** Scan outcomes counted: `ok`, the reason of a refusal, `http <status>` or `lost` (no answer). */
export type Outcomes = Record<string, number>

const bump = (map: Outcomes, key: string) => {
  map[key] = (map[key] ?? 0) + 1
}

/** How a scan's answer counts: `ok`, or why it was refused. */
function outcomeOf(answer: { status: string; reason: string | null }) {
  return answer.status === 'ok' ? 'ok' : String(answer.reason)
}

/** The most tickets of one item a basket takes (the storefront's limit). */
const PER_ITEM = 20

/**
 * Tickets of the check-in event bought through the storefront as a partner buys them (a basket,
 * then its checkout), one item of 20 of each sector per order: 1,000 tickets an order with the
 * 50 sectors. Answers at least `count` tickets, each with its signed code.
 */
export async function buyTickets(options: {
  baseUrl: string
  authorization: string
  customerToken: string
  inventoryIds: readonly string[]
  count: number
}): Promise<Ticket[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const headers = { authorization: options.authorization, 'x-customer-token': options.customerToken }
  const items = JSON.stringify({ items: options.inventoryIds.map((id) => ({ inventory_id: id, quantity: PER_ITEM })) })
  const tickets: Ticket[] = []
  try {
    while (tickets.length < options.count) {
      const basket = await send(agent, 'POST', `${options.baseUrl}/stf/v1/baskets`, headers, items)
      if (basket.status !== 201) throw new Error(`check-in tickets: basket answered ${basket.status} ${basket.body.slice(0, 300)}`)
      const basketId = (JSON.parse(basket.body) as { id: string }).id
      const order = await send(agent, 'POST', `${options.baseUrl}/stf/v1/baskets/${basketId}/checkout`, headers, JSON.stringify({ payment_method: 'pix' }))
      if (order.status !== 201) throw new Error(`check-in tickets: checkout answered ${order.status} ${order.body.slice(0, 300)}`)
      const placed = JSON.parse(order.body) as { id: string; tickets: Ticket[] }
      for (const { identifier, code } of placed.tickets) tickets.push({ identifier, code, orderId: placed.id })
    }
  } finally {
    agent.destroy()
  }
  return tickets
}

export type UploadOutcome = { scans: number; status: number; ms: number; outcomes: Outcomes }

/**
 * One offline upload: each ticket scanned once by one gate during the last five minutes, with
 * its own nonce and `force: true`, sent in one `POST /chk/v1/redeem/batch`. Answers the call's
 * wall time and its answers by outcome.
 */
export async function uploadOffline(options: {
  baseUrl: string
  token: string
  listId: string
  tickets: readonly Ticket[]
  /** Names this upload's nonces: a device's nonces are its own, once each. */
  nonces: string
}): Promise<UploadOutcome> {
  const from = Date.now() - 5 * 60_000
  const step = (5 * 60_000) / options.tickets.length
  const scans = options.tickets.map((ticket, n) => ({
    code: ticket.code,
    list_ids: [options.listId],
    scanned_at: new Date(from + n * step).toISOString(),
    force: true,
    nonce: `${options.nonces}-${n}`,
  }))
  const agent = new Agent({ keepAlive: false })
  const answer = await send(agent, 'POST', `${options.baseUrl}/chk/v1/redeem/batch`, { authorization: `Device ${options.token}` }, JSON.stringify({ scans }))
  const outcomes: Outcomes = {}
  if (answer.status === 200)
    for (const result of (JSON.parse(answer.body) as { results: { status: string; reason: string | null }[] }).results) bump(outcomes, outcomeOf(result))
  else bump(outcomes, answer.status === 0 ? 'lost' : `http ${answer.status}`)
  return { scans: scans.length, status: answer.status, ms: answer.ms, outcomes }
}

export type GatesOutcome = { row: Row; scans: number; elapsedMs: number; outcomes: Outcomes; finished: boolean }

/**
 * Gates at the doors, one paired device each, scanning distinct tickets by their QR codes with
 * `POST /chk/v1/redeem`, one scan at a time per gate: `perGate` scans each, back to back (as fast
 * as they can), or with `rate`, that many scans per second in all, each gate's turns evenly
 * spaced and the gates evenly staggered. autocannon's rate is a burst at the start of every
 * second, so this loop keeps its own schedule; a paced scan's latency runs from when it was due,
 * so a server that falls behind shows in p99 instead of slowing the gates down. Stops after
 * `maxSeconds` whatever is left (then `finished` is false).
 */
export async function scanAtGates(options: {
  baseUrl: string
  tokens: readonly string[]
  listId: string
  /** `tokens.length × perGate` of them: gate g scans the g-th run of `perGate`. */
  tickets: readonly Ticket[]
  perGate: number
  rate?: number
  maxSeconds: number
}): Promise<GatesOutcome> {
  const gates = options.tokens.length
  if (options.tickets.length < gates * options.perGate)
    throw new Error(`check-in gates: ${options.tickets.length} tickets for ${gates} × ${options.perGate} scans`)
  const agent = new Agent({ keepAlive: true, maxSockets: gates })
  const url = `${options.baseUrl}/chk/v1/redeem`
  const latencies: number[] = []
  const outcomes: Outcomes = {}
  const tally = { errors: 0, non2xx: 0, fiveXx: 0 }
  const intervalMs = options.rate ? (gates / options.rate) * 1000 : 0
  const started = performance.now()
  const deadline = started + options.maxSeconds * 1000
  let cut = false

  const scanAtGate = async (gate: number) => {
    const headers = { authorization: `Device ${options.tokens[gate]}` }
    for (let k = 0; k < options.perGate; k++) {
      if (performance.now() > deadline) {
        cut = true
        return
      }
      const due = started + (gate * intervalMs) / gates + k * intervalMs
      if (intervalMs > 0 && due > performance.now()) await sleep(due - performance.now())
      const sentAt = performance.now()
      const ticket = options.tickets[gate * options.perGate + k]!
      const answer = await send(agent, 'POST', url, headers, JSON.stringify({ code: ticket.code, list_ids: [options.listId] }))
      latencies.push(performance.now() - (intervalMs > 0 ? Math.min(due, sentAt) : sentAt))
      if (answer.status === 0) {
        tally.errors++
        bump(outcomes, 'lost')
      } else if (answer.status !== 200) {
        tally.non2xx++
        if (answer.status >= 500) tally.fiveXx++
        bump(outcomes, `http ${answer.status}`)
      } else bump(outcomes, outcomeOf(JSON.parse(answer.body) as { status: string; reason: string | null }))
    }
  }
  try {
    await Promise.all(Array.from({ length: gates }, (_, gate) => scanAtGate(gate)))
  } finally {
    agent.destroy()
  }
  const elapsedMs = performance.now() - started
  latencies.sort((a, b) => a - b)
  const ms = (value: number) => Math.round(value * 10) / 10
  return {
    scans: latencies.length,
    elapsedMs,
    outcomes,
    finished: !cut,
    row: {
      scenario: '',
      rps: Math.round(latencies.length / (elapsedMs / 1000)),
      p50: ms(percentile(latencies, 50)),
      p99: ms(percentile(latencies, 99)),
      requests: latencies.length,
      errors: tally.errors,
      non2xx: tally.non2xx,
      '5xx': tally.fiveXx,
    },
  }
}

/** A page of a list's feed as a gate reads it (`GET /chk/v1/lists/{id}/tickets`), the fields counted here. */
type FeedPage = { data: { identifier: string; status: string }[]; next_cursor: string; has_more: boolean }

export type FeedWalk = { rows: number; byStatus: Record<string, number>; pages: number; ms: number; cursor: string; failed: string | null }

/**
 * A gate's sync: the list's feed read page after page (the default limit, as the scanner page asks
 * it) from `cursor` (from the start without one) until `has_more` is false. Answers the rows read,
 * by status, the pages, the time and the cursor to go on from; `failed` names an answer not 200.
 */
export async function walkFeed(options: { baseUrl: string; token: string; listId: string; cursor?: string }): Promise<FeedWalk> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const headers = { authorization: `Device ${options.token}` }
  const walk: FeedWalk = { rows: 0, byStatus: {}, pages: 0, ms: 0, cursor: options.cursor ?? '', failed: null }
  const started = performance.now()
  try {
    for (;;) {
      const query = walk.cursor ? `?cursor=${encodeURIComponent(walk.cursor)}` : ''
      const answer = await send(agent, 'GET', `${options.baseUrl}/chk/v1/lists/${options.listId}/tickets${query}`, headers)
      if (answer.status !== 200) {
        walk.failed = `page ${walk.pages + 1}: ${answer.status} ${answer.body.slice(0, 200)}`
        break
      }
      const page = JSON.parse(answer.body) as FeedPage
      walk.pages++
      walk.rows += page.data.length
      for (const ticket of page.data) bump(walk.byStatus, ticket.status)
      walk.cursor = page.next_cursor
      if (!page.has_more) break
    }
  } finally {
    agent.destroy()
  }
  walk.ms = performance.now() - started
  return walk
}

export type FirstPageTimes = { reads: number; totalMs: number; p50: number; p99: number; rows: number; bytes: number; failed: number }

/**
 * The feed's first page (no cursor, the default limit: what a gate reads first, and a gate that
 * lost its copy reads again) of each of `listIds`, read in turns (one of each list, then again)
 * `reads` times each on one connection, after `warmUp` turns not counted: lists read in
 * alternation see the same machine, so their figures compare even on a shared one. Answers, per
 * list, its p50 and p99, the rows and bytes of the page, and how many reads were not 200.
 */
export async function timeFirstPages(options: {
  baseUrl: string
  token: string
  listIds: readonly string[]
  reads: number
  warmUp: number
}): Promise<FirstPageTimes[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const headers = { authorization: `Device ${options.token}` }
  const lists = options.listIds.map((listId) => ({
    url: `${options.baseUrl}/chk/v1/lists/${listId}/tickets`,
    times: [] as number[],
    rows: 0,
    bytes: 0,
    failed: 0,
  }))
  try {
    for (let n = 0; n < options.warmUp + options.reads; n++) {
      for (const list of lists) {
        const answer = await send(agent, 'GET', list.url, headers)
        if (answer.status !== 200) list.failed++
        else if (n === 0) {
          list.rows = (JSON.parse(answer.body) as FeedPage).data.length
          list.bytes = Buffer.byteLength(answer.body)
        }
        if (n >= options.warmUp) list.times.push(answer.ms)
      }
    }
  } finally {
    agent.destroy()
  }
  const ms = (value: number) => Math.round(value * 10) / 10
  return lists.map(({ times, rows, bytes, failed }) => {
    const totalMs = times.reduce((sum, t) => sum + t, 0)
    times.sort((a, b) => a - b)
    return { reads: times.length, totalMs, p50: ms(percentile(times, 50)), p99: ms(percentile(times, 99)), rows, bytes, failed }
  })
}

/** The `code` of an error answer's body, or its first characters. */
const errorCode = (body: string) => {
  try {
    return String((JSON.parse(body) as { code?: unknown }).code)
  } catch {
    return body.slice(0, 80)
  }
}

export type TransfersOutcome = {
  /** The recipients' new tickets, in the order of `tickets`. */
  received: Ticket[]
  offerMs: number
  acceptMs: number
  /** Answers other than 201 to an offer and 200 to an accept, by call and status; a mail not received. */
  failures: Outcomes
}

/**
 * Gives each of `tickets` to a recipient of its own through the storefront, as a buyer and a
 * friend do (docs/transfers.md): `POST /stf/v1/orders/{id}/tickets/{identifier}/transfers` with
 * the buyer's customer token; the token read from the link in the email each recipient got
 * (`mailbox`: the emails' text by recipient); `POST /stf/v1/transfers/accept` with the seller's
 * credentials alone (the recipient has no account: a guest order). `concurrency` calls in flight,
 * taking the tickets round the orders (an offer and an accept lock the sender's order).
 */
export async function transferTickets(options: {
  baseUrl: string
  authorization: string
  customerToken: string
  tickets: readonly Ticket[]
  concurrency: number
  mailbox: (recipients: string[]) => Promise<Record<string, string>>
}): Promise<TransfersOutcome> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency })
  const failures: Outcomes = {}
  const recipientOf = (ticket: Ticket) => `friend-${ticket.identifier.toLowerCase()}@bench.example.com`
  const byOrder = new Map<string, Ticket[]>()
  for (const ticket of options.tickets) byOrder.set(ticket.orderId, [...(byOrder.get(ticket.orderId) ?? []), ticket])
  const queues = [...byOrder.values()]
  const roundTheOrders = Array.from({ length: Math.max(...queues.map((q) => q.length)) }, (_, k) => queues.flatMap((q) => (q[k] ? [q[k]] : []))).flat()
  const inParallel = async <T>(items: readonly T[], work: (item: T) => Promise<void>) => {
    let next = 0
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (next < items.length) await work(items[next++]!)
      }),
    )
  }
  const received = new Map<string, Ticket>()
  try {
    const offering = performance.now()
    const offered: Ticket[] = []
    await inParallel(roundTheOrders, async (ticket) => {
      const answer = await send(
        agent,
        'POST',
        `${options.baseUrl}/stf/v1/orders/${ticket.orderId}/tickets/${ticket.identifier}/transfers`,
        { authorization: options.authorization, 'x-customer-token': options.customerToken },
        JSON.stringify({ email: recipientOf(ticket), name: `Friend ${ticket.identifier.slice(0, 6)}` }),
      )
      if (answer.status === 201) offered.push(ticket)
      else bump(failures, `offer ${answer.status} ${errorCode(answer.body)}`)
    })
    const offerMs = performance.now() - offering

    const mails = await options.mailbox(offered.map(recipientOf))
    const accepting = performance.now()
    await inParallel(offered, async (ticket) => {
      const token = /\/transfer\?token=([A-Za-z0-9_%-]+)/.exec(mails[recipientOf(ticket)] ?? '')?.[1]
      if (!token) return bump(failures, 'no email with a link')
      const answer = await send(
        agent,
        'POST',
        `${options.baseUrl}/stf/v1/transfers/accept`,
        { authorization: options.authorization },
        JSON.stringify({ token: decodeURIComponent(token) }),
      )
      if (answer.status !== 200) return bump(failures, `accept ${answer.status} ${errorCode(answer.body)}`)
      const { ticket: mine, order_id } = JSON.parse(answer.body) as { ticket: { identifier: string; code: string }; order_id: string }
      received.set(ticket.identifier, { identifier: mine.identifier, code: mine.code, orderId: order_id })
    })
    const acceptMs = performance.now() - accepting
    return { received: options.tickets.flatMap((ticket) => received.get(ticket.identifier) ?? []), offerMs, acceptMs, failures }
  } finally {
    agent.destroy()
  }
}
