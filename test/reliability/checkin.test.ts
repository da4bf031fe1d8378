import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestEvent, createTestInventory, dayFromToday } from '../factories/catalog.js'
import { createTestSeller, type TestSeller } from '../factories/sellers.js'
import { buyTickets, type TestOrder } from '../support/checkin.js'
import { all, callServer, countStatuses, freshDatabase, openFixtures, retrying, startServer, type Answer } from '../support/live-server.js'
import type { ServerProcess } from '../support/server-process.js'
import { eventually } from '../support/smtp-sink.js'
import { asAdmin, type TestStaff } from '../support/staff.js'

/**
 * Door check-in (docs/door.md) on real server processes over one PostgreSQL database: an offline
 * upload cut short by kill -9 and sent again to a new process records every scan exactly once;
 * two replicas scanning one ticket at the same moment give one `ok` between them, and refuse a
 * device the other revoked on its very next request.
 */
type Ticket = TestOrder['tickets'][number]
type Gate = { id: string; headers: Record<string, string> }

/** The offline upload: one scan of each of this many tickets, the most a batch may carry. */
const UPLOAD = 1000
/** Scans of one ticket sent at once, half to each replica. */
const AT_ONCE = 20

let databaseUrl: string
/** A connection of the test's own, to watch the database while servers come and go. */
let watcher: pg.Client
let seller: TestSeller
let admin: TestStaff
let eventId: string
let uploadTickets: Ticket[]
let doorTickets: Ticket[]
const shed = { retries: 0 }

beforeAll(async () => {
  databaseUrl = await freshDatabase()
  const fx = await openFixtures(databaseUrl)
  try {
    // In UTC, today's date is the seller's today: scans made now fall within the tickets' day.
    seller = await createTestSeller(fx.app, { settings: { timezone: 'UTC' } })
    admin = await asAdmin(fx.app)
    const event = await createTestEvent(fx.app, seller.seller.id)
    eventId = event.id
    // 50 sectors of 20 tickets: the 1,000 tickets of the upload in one basket (50 items of at most 20).
    const sectors = await Promise.all(
      Array.from({ length: 50 }, (_, n) => createTestInventory(fx.app, event, { name: `Sector ${n + 1}`, date: dayFromToday(0), capacity: 100 })),
    )
    const everySector = sectors.map((sector) => ({ inventory_id: sector.id, quantity: UPLOAD / sectors.length }))
    uploadTickets = (await buyTickets(fx.app, seller, everySector)).tickets
    doorTickets = (await buyTickets(fx.app, seller, [{ inventory_id: sectors[0]!.id, quantity: 20 }])).tickets
  } finally {
    // Closed before any server starts: from here on, every other connection to the database is a server's.
    await fx.close()
  }
  watcher = new pg.Client({ connectionString: databaseUrl, application_name: 'checkin-test-watcher' })
  await watcher.connect()
}, 90_000)

afterAll(async () => {
  await watcher?.end()
  console.info(`check-in: ${shed.retries} scans answered 503 under the burst and were sent again`)
})

const rows = async <T>(text: string, values: unknown[] = []) => (await watcher.query(text, values)).rows as T[]

/** Calls the back office of a server as the admin; the answer must have `status`. */
async function backOffice(server: ServerProcess, path: string, body: object, status: number) {
  const answer = await callServer(server.baseUrl, 'POST', `/adm/v1${path}`, { headers: admin.auth, body })
  expect(answer.status, JSON.stringify(answer.body)).toBe(status)
  return answer.body
}

/** A check-in list of the event, created in the back office of `server`. */
const createList = async (server: ServerProcess, name: string): Promise<string> =>
  (await backOffice(server, `/events/${eventId}/checkin-lists`, { name }, 201)).id

/** A device created in the back office and paired, as staff and a gate do it, both through `server`. */
async function pairGate(server: ServerProcess, name: string): Promise<Gate> {
  const created = await backOffice(server, `/sellers/${seller.seller.id}/devices`, { name }, 201)
  const paired = await callServer(server.baseUrl, 'POST', '/chk/v1/pair', { body: { pairing_code: created.pairing_code } })
  expect(paired.status, JSON.stringify(paired.body)).toBe(201)
  return { id: created.id, headers: { authorization: `Device ${paired.body.token}` } }
}

/** A gate's call to `/chk/v1` of a server. */
const asGate = (server: ServerProcess, gate: Gate, path: string, body: object) =>
  callServer(server.baseUrl, 'POST', `/chk/v1${path}`, { headers: gate.headers, body, timeoutMs: 60_000 })

/** Each answer's status, or its reason when refused, counted: `{ ok: 1, already_redeemed: 19 }`. */
function outcomes(answers: { status: string; reason: string | null }[]) {
  const counts: Record<string, number> = {}
  for (const a of answers) {
    const key = a.status === 'ok' ? 'ok' : String(a.reason)
    counts[key] = (counts[key] ?? 0) + 1
  }
  return counts
}

describe('an offline upload cut short by kill -9 of the server', () => {
  let servers: ServerProcess[] = []
  afterAll(async () => {
    for (const server of servers) await server.stop('SIGKILL')
    servers = []
  })

  it('records all of an upload or none of it, and every scan exactly once when it is sent again to a new process', async () => {
    servers.push(await startServer(databaseUrl))
    const listId = await createList(servers[0]!, 'Offline gate')
    const gate = await pairGate(servers[0]!, 'Offline gate 1')
    // Scanned offline over the last few minutes, oldest first, each with its own nonce; the QR's signed code, as the gate read it.
    const scannedFrom = Date.now() - 5 * 60_000
    const scans = uploadTickets.map((ticket, n) => ({
      code: ticket.code,
      list_ids: [listId],
      scanned_at: new Date(scannedFrom + n * 250).toISOString(),
      force: true,
      nonce: `offline-${n}`,
    }))
    expect(scans).toHaveLength(UPLOAD)

    const upload = asGate(servers[0]!, gate, '/redeem/batch', { scans })
    // Killed while the upload's transaction is open: the batch is judged and written in one transaction.
    await eventually(
      async () =>
        (
          await rows(
            `select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and xact_start is not null
                and (query ilike '%for update of t%' or query ilike '%insert into "checkins"%')`,
          )
        ).length > 0,
      30_000,
      2,
    )
    servers[0]!.child.kill('SIGKILL')
    await servers[0]!.exited
    // Whatever PostgreSQL committed for the dead process is in once its connections are gone.
    await eventually(
      async () => (await rows('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()')).length === 0,
      10_000,
      10,
    )
    const cut: Answer = await upload
    const before = new Map(
      (await rows<{ nonce: string; id: string }>('select nonce, id from checkins where device_id = $1', [gate.id])).map((r) => [r.nonce, r.id]),
    )
    expect(cut.status, 'the first upload got no answer').toBe(0)
    expect([0, UPLOAD], 'all of the upload or none of it').toContain(before.size)

    servers.push(await startServer(databaseUrl))
    const retry = await asGate(servers[1]!, gate, '/redeem/batch', { scans })
    expect(retry.status, JSON.stringify(retry.body).slice(0, 500)).toBe(200)
    const results = retry.body.results as { status: string; reason: string | null; checkin: { id: string; nonce: string } }[]
    expect(results).toHaveLength(UPLOAD)
    expect(outcomes(results)).toEqual({ ok: UPLOAD })
    results.forEach((answer, n) => {
      expect(answer.checkin.nonce).toBe(scans[n]!.nonce)
      // A scan recorded before the kill is answered again from its record, not recorded anew.
      if (before.has(answer.checkin.nonce)) expect(answer.checkin.id).toBe(before.get(answer.checkin.nonce))
    })

    const perNonce = await rows<{ nonce: string; n: number }>('select nonce, count(*)::int as n from checkins where device_id = $1 group by nonce', [gate.id])
    expect(perNonce).toHaveLength(UPLOAD)
    expect(perNonce.filter((r) => r.n !== 1)).toEqual([])
    const [admitted] = await rows<{ scans: number; tickets: number; successful: number }>(
      `select count(*)::int as scans, count(distinct ticket_id)::int as tickets, count(*) filter (where successful)::int as successful
         from checkins where list_id = $1`,
      [listId],
    )
    expect(admitted).toEqual({ scans: UPLOAD, tickets: UPLOAD, successful: UPLOAD })
    console.info(`kill -9 during an upload of ${UPLOAD} scans: ${before.size} recorded before the kill; the retry recorded the other ${UPLOAD - before.size}`)
  }, 120_000)
})

describe('an offline upload with every other scan invalid', () => {
  let server: ServerProcess | undefined
  afterAll(async () => {
    expect(await server?.stop('SIGTERM')).toBe(0)
  })

  it('records the valid 500 of 1,000 scans and answers the invalid 500 invalid_scan, all within 1 s', async () => {
    server = await startServer(databaseUrl)
    const listId = await createList(server, 'Half-invalid gate')
    const gate = await pairGate(server, 'Half-invalid gate 1')
    const half = uploadTickets.slice(0, UPLOAD / 2)
    // The invalid kinds in turn: no nonce, a control character, a list that is not the device's, a time that is no time.
    const invalid = (ticket: Ticket, n: number) =>
      [
        { code: ticket.code, list_ids: [listId], force: true },
        { code: `${ticket.identifier}\u0007`, list_ids: [listId], force: true, nonce: `bad-${n}` },
        { code: ticket.code, list_ids: [listId, '00000000-0000-4000-8000-000000000000'], force: true, nonce: `bad-${n}` },
        { code: ticket.code, list_ids: [listId], force: true, nonce: `bad-${n}`, scanned_at: 'soon' },
      ][n % 4]!
    const scans = half.flatMap((ticket, n) => [{ code: ticket.code, list_ids: [listId], force: true, nonce: `half-${n}` }, invalid(ticket, n)])
    expect(scans).toHaveLength(UPLOAD)
    // One small upload first, so that the measured one meets warm connections and prepared statements.
    expect((await asGate(server, gate, '/redeem/batch', { scans: scans.slice(0, 2) })).status).toBe(200)
    const started = performance.now()
    const answer = await asGate(server, gate, '/redeem/batch', { scans })
    const took = performance.now() - started
    expect(answer.status, JSON.stringify(answer.body).slice(0, 500)).toBe(200)
    const results = answer.body.results as { status: string; reason: string | null }[]
    expect(outcomes(results.filter((_, n) => n % 2 === 0))).toEqual({ ok: UPLOAD / 2 })
    expect(outcomes(results.filter((_, n) => n % 2 === 1))).toEqual({ invalid_scan: UPLOAD / 2 })
    const [recorded] = await rows<{ scans: number; bad: number }>(
      "select count(*)::int as scans, count(*) filter (where nonce like 'bad-%')::int as bad from checkins where device_id = $1",
      [gate.id],
    )
    expect(recorded).toEqual({ scans: UPLOAD / 2, bad: 0 })
    console.info(`an upload of ${UPLOAD} scans, every other one invalid: answered in ${took.toFixed(0)} ms`)
    expect(took).toBeLessThan(1000)
  }, 120_000)
})

describe('two replicas over one database', () => {
  let replicas: ServerProcess[] = []
  beforeAll(async () => {
    // The first migrates; the second finds the schema ready.
    replicas = [await startServer(databaseUrl), await startServer(databaseUrl)]
  }, 90_000)
  afterAll(async () => {
    const codes = await Promise.all(replicas.map((replica) => replica.stop('SIGTERM')))
    expect(codes).toEqual([0, 0])
  })

  it(`one ticket scanned at the same moment on both, ${AT_ONCE} times: exactly one ok, every other scan already_redeemed`, async () => {
    const listId = await createList(replicas[0]!, 'Both doors')
    const gates = [await pairGate(replicas[0]!, 'North door'), await pairGate(replicas[1]!, 'South door')]
    const tickets = doorTickets.slice(0, 10)
    for (const ticket of tickets) {
      // All sent before any answer: each door's gate to its replica, by identifier and by QR code alike.
      const answers = await all(AT_ONCE, (n) =>
        retrying(() => asGate(replicas[n % 2]!, gates[n % 2]!, '/redeem', { code: n % 4 < 2 ? ticket.identifier : ticket.code, list_ids: [listId] }), shed),
      )
      expect(countStatuses(answers)).toEqual({ 200: AT_ONCE })
      expect(outcomes(answers.map((a) => a.body))).toEqual({ ok: 1, already_redeemed: AT_ONCE - 1 })
    }
    // Every scan is kept, refused ones too: per ticket, one successful entry among its scans.
    const perTicket = await rows<{ scans: number; successful: number }>(
      `select count(*)::int as scans, count(*) filter (where successful)::int as successful from checkins where list_id = $1 group by ticket_id`,
      [listId],
    )
    expect(perTicket).toEqual(tickets.map(() => ({ scans: AT_ONCE, successful: 1 })))
  })

  it('a device revoked through one replica is refused by the other on its very next request, round after round', async () => {
    const listId = await createList(replicas[0]!, 'Revoked doors')
    const fresh = doorTickets.slice(10)
    for (let round = 0; round < 5; round++) {
      const [here, there] = [replicas[round % 2]!, replicas[(round + 1) % 2]!]
      const gate = await pairGate(here, `Gate ${round}`)
      // Both replicas have let it in.
      for (const replica of [here, there, here, there])
        expect((await callServer(replica.baseUrl, 'GET', '/chk/v1/lists', { headers: gate.headers })).status).toBe(200)
      const revoked = await backOffice(here, `/devices/${gate.id}/revoke`, {}, 200)
      expect(revoked.revoked_at).not.toBeNull()
      const refused = await asGate(there, gate, '/redeem', { code: fresh[round]!.identifier, list_ids: [listId] })
      expect(refused.status).toBe(401)
      expect(refused.body.code).toBe('unauthorized')
      expect((await asGate(here, gate, '/redeem', { code: fresh[round]!.identifier, list_ids: [listId] })).status).toBe(401)
    }
    // A refused device records nothing.
    expect(await rows('select id from checkins where list_id = $1', [listId])).toEqual([])
  })
})
