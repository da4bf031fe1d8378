import { Agent } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { percentile } from './flash.js'
import { send } from './http.js'
import type { Row } from './load.js'

/** A ticket as a gate sees it: its identifier and the signed code its QR holds. */
export type Ticket = { identifier: string; code: string }

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
      for (const { identifier, code } of (JSON.parse(order.body) as { tickets: Ticket[] }).tickets) tickets.push({ identifier, code })
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
