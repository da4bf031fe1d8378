import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestEvent, createTestInventory, sellTickets } from '../factories/catalog.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { createTestSeller, type TestSeller } from '../factories/sellers.js'
import { commerceViolations, queryDatabase } from '../support/commerce-invariants.js'
import { all, callServer, countStatuses, freshDatabase, openFixtures, retrying, startServer, type Answer, type Fixtures } from '../support/live-server.js'
import type { ServerProcess } from '../support/server-process.js'
import { eventually, SmtpSink } from '../support/smtp-sink.js'
import { asAdmin, type TestStaff } from '../support/staff.js'

/**
 * The waiting list (docs/waiting-list.md) under races, on PostgreSQL, against real server processes over
 * one database, with an app of this process on the same database that serves the list by hand
 * (`app.outbox.runOnce('waiting_list')`, `app.waitingList.sweep()`). Returned tickets go to the
 * people waiting, each exactly once, in order: never to a buyer who races them, never to two
 * entries, never beyond the capacity.
 */
let databaseUrl: string
let sink: SmtpSink
let fx: Fixtures
let replicas: ServerProcess[] = []
let seller: TestSeller
let admin: TestStaff
const tally = { requests: 0, statuses: {} as Record<number, number>, retries: 0 }

beforeAll(async () => {
  databaseUrl = await freshDatabase()
  sink = await SmtpSink.start()
  // This process's app migrates the database; the servers find the schema ready.
  fx = await openFixtures(databaseUrl, { SMTP_URL: sink.url })
  seller = await createTestSeller(fx.app)
  admin = await asAdmin(fx.app)
}, 90_000)

afterAll(async () => {
  await fx?.close()
  await sink?.stop()
  console.info(
    `waiting list: ${tally.requests} requests to the server processes, final answers ${JSON.stringify(tally.statuses)}, ` +
      `${tally.retries} fast 503s under bursts retried`,
  )
})

/** `count` server processes over the database for the tests of a describe block, stopped after them (cleanly: exit 0). */
function useServers(count: number, env: Record<string, string>) {
  beforeAll(async () => {
    replicas = []
    for (let n = 0; n < count; n++) replicas.push(await startServer(databaseUrl, { SMTP_URL: sink.url, DB_POOL_MAX: '8', ...env }))
  }, 90_000)
  afterAll(async () => {
    const codes = await Promise.all(replicas.map((r) => r.stop('SIGTERM')))
    replicas = []
    expect(codes).toEqual(codes.map(() => 0))
  })
}

/** A call to server process `n % count`, as a well-behaved client makes it: a 503 (load shed, nothing written) is retried. */
async function call(n: number, method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Answer> {
  const answer = await retrying(
    () => callServer(replicas[n % replicas.length]!.baseUrl, method, path, { headers, ...(body === undefined ? {} : { body }) }),
    tally,
  )
  tally.requests++
  tally.statuses[answer.status] = (tally.statuses[answer.status] ?? 0) + 1
  return answer
}

const one = (inventoryId: string) => ({ items: [{ inventory_id: inventoryId, quantity: 1 }] })

/** A sold-out inventory of `capacity` tickets, sold as orders of one ticket each, with its waiting list on. */
async function soldOutInventory(capacity: number): Promise<{ inventoryId: string; eventId: string; orderIds: string[] }> {
  const event = await createTestEvent(fx.app, seller.seller.id)
  const inventory = await createTestInventory(fx.app, event, { capacity })
  const opened = await call(0, 'PUT', `/adm/v1/inventories/${inventory.id}`, admin.auth, { waiting_list: true })
  expect(opened.status, JSON.stringify(opened.body)).toBe(200)
  expect(opened.body.waiting_list).toBe(true)
  const buyers = await Promise.all(Array.from({ length: capacity }, () => insertSignedInCustomer(fx.app, seller)))
  const orderIds = await all(capacity, async (n) => {
    const basket = await call(n, 'POST', '/stf/v1/baskets', buyers[n]!.headers, one(inventory.id))
    expect(basket.status, JSON.stringify(basket.body)).toBe(201)
    const order = await call(n + 1, 'POST', `/stf/v1/baskets/${basket.body.id}/checkout`, buyers[n]!.headers, { payment_method: 'pix' })
    expect(order.status, JSON.stringify(order.body)).toBe(201)
    return order.body.id as string
  })
  expect(await stockOf(inventory.id)).toMatchObject({ capacity, sold: capacity, held: 0 })
  return { inventoryId: inventory.id, eventId: event.id, orderIds }
}

/** Joins the list through server process `n % count`; every join here must be accepted. */
async function join(n: number, inventoryId: string, quantity: number) {
  const email = `waiting-${n}-${randomBytes(4).toString('hex')}@example.com`
  const answer = await call(n, 'POST', '/stf/v1/waiting-list', seller.auth, { inventory_id: inventoryId, quantity, email, name: `Waiting ${n}` })
  expect(answer.status, JSON.stringify(answer.body)).toBe(201)
  expect(answer.body).toMatchObject({ inventory_id: inventoryId, quantity, status: 'waiting' })
  return { id: answer.body.id as string, email, quantity, position: answer.body.position as number }
}

type Stock = {
  capacity: number
  sold: number
  /** Held now by THE definition of held (tickets_held.sql): baskets and offers alike. */
  held: number
  /** What offers hold: the quantities of the entries offered now. */
  offered: number
  /** Held by baskets that no entry owns: buyers' baskets. */
  public_held: number
}

/**
 * The inventory's stock as the database holds it now, read in one statement (one snapshot):
 * capacity, sold, held (the product's one definition), what the offers hold, and what baskets
 * other than the entries' hold.
 */
async function stockOf(inventoryId: string, client?: pg.Client): Promise<Stock> {
  const text = `select i.capacity, i.sold, h.held,
            (select coalesce(sum(e.quantity), 0)::int from waiting_entries e where e.inventory_id = i.id and e.status = 'offered') as offered,
            (select coalesce(sum(bi.quantity), 0)::int from basket_items bi join baskets b on b.id = bi.basket_id
              where bi.inventory_id = i.id and b.status = 'open' and b.expires_at > now()
                and not exists (select 1 from waiting_entries e where e.basket_id = b.id)) as public_held
       from inventories i cross join lateral tickets_held(i.id, null) as h
      where i.id = $1`
  const [row] = client ? (await client.query<Stock>(text, [inventoryId])).rows : await queryDatabase<Stock>(databaseUrl, text, [inventoryId])
  return row!
}

type EntryRow = { id: string; email: string; quantity: number; status: string; priority: number; basket_id: string | null; offer_expires_at: Date | null }

/** The inventory's entries in serving order (priority, then time of joining). */
const entriesOf = (inventoryId: string) =>
  queryDatabase<EntryRow>(
    databaseUrl,
    `select id, email, quantity, status, priority, basket_id, offer_expires_at from waiting_entries
      where inventory_id = $1 order by priority desc, created_at, id`,
    [inventoryId],
  )

/**
 * Samples the stock every few ms until `stop()` (at most `limit` samples) and keeps every sample
 * that breaks a rule: sold + held beyond capacity, offers holding more than is free of sold and
 * buyers' holds, or offers beyond the tickets returned so far.
 */
function watchStock(inventoryId: string, returnedSoFar: () => number, limit = 2000) {
  const broken: string[] = []
  let samples = 0
  let running = true
  // A connection of its own, so that a sample costs one round trip.
  const client = new pg.Client({ connectionString: databaseUrl })
  const done = (async () => {
    await client.connect()
    while (running && samples < limit) {
      const stock = await stockOf(inventoryId, client)
      samples++
      if (stock.sold + stock.held > stock.capacity) broken.push(`sold + held beyond capacity: ${JSON.stringify(stock)}`)
      if (stock.offered > stock.capacity - stock.sold - stock.public_held) broken.push(`offers hold more than is free: ${JSON.stringify(stock)}`)
      // A ticket is returned when its cancellation commits, which the test counts a moment later: an allowance of the cancellations in flight.
      if (stock.offered > returnedSoFar()) broken.push(`offers beyond the tickets returned: ${JSON.stringify(stock)} > ${returnedSoFar()}`)
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  })().finally(() => client.end())
  return {
    async stop() {
      running = false
      await done
      return { broken, samples }
    },
  }
}

describe('one returned ticket raced by 200 buyers and an offer', () => {
  // A server whose worker waits a minute before its first pass: the offer is made here, by hand, while the buyers race.
  useServers(1, { OUTBOX_POLL_MS: '60000', WAITING_LIST_SWEEP_MS: '60000' })

  it('the entry waiting gets it (offered); every one of the 200 buyers gets 409 insufficient_inventory; never beyond capacity', async () => {
    const capacity = 5
    const { inventoryId, eventId, orderIds } = await soldOutInventory(capacity)
    const entry = await join(0, inventoryId, 1)
    expect(entry.position).toBe(1)
    // Sold out, someone waits: a buyer is refused before anything is returned, too.
    const before = await call(1, 'POST', '/stf/v1/baskets', seller.auth, one(inventoryId))
    expect(before.status).toBe(409)

    const cancelled = await call(0, 'POST', `/adm/v1/orders/${orderIds[0]}/cancel`, admin.auth)
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200)
    expect(cancelled.body.status).toBe('cancelled')
    const watch = watchStock(inventoryId, () => 1)

    // 200 buyers at once; once a quarter of them are answered (the ticket free, the entry still
    // waiting), this process serves the list again and again, two ways at once, until they are done.
    let buying = true
    const raceStarted = performance.now()
    const burstAt = Date.now()
    const answeredAt: number[] = []
    const buyers = all(200, async (n) => {
      const answer = await call(n, 'POST', '/stf/v1/baskets', seller.auth, one(inventoryId))
      answeredAt.push(Date.now())
      return answer
    }).finally(() => (buying = false))
    const serving = (async () => {
      await eventually(() => answeredAt.length >= 50 || !buying, 30_000, 2)
      let passes = 0
      let offers = 0
      // Bounded in count and time; a few passes at least, so the turn is served even if the buyers were all answered first.
      for (; passes < 2000 && performance.now() - raceStarted < 60_000 && (buying || passes < 3); passes++) {
        const [, swept] = await Promise.all([fx.app.outbox.runOnce('waiting_list'), passes % 4 === 0 ? fx.app.waitingList.sweep() : 0])
        offers += swept
      }
      return { passes, offers }
    })()
    const [answers, { passes }] = await Promise.all([buyers, serving])

    expect(countStatuses(answers)).toEqual({ 409: 200 })
    for (const refused of answers) expect(refused.body.code).toBe('insufficient_inventory')
    const [offered] = await entriesOf(inventoryId)
    expect(offered).toMatchObject({ id: entry.id, status: 'offered', quantity: 1 })
    expect(offered!.offer_expires_at).not.toBeNull()
    const entryAnswer = await call(1, 'GET', `/stf/v1/waiting-list/${entry.id}`, seller.auth)
    expect(entryAnswer.body).toMatchObject({ status: 'offered', position: null })

    const { broken, samples } = await watch.stop()
    expect(broken, `${samples} samples`).toEqual([])
    // When the offer was made (the database's clock, on this machine) against the buyers' answers: the race is reported, not assumed.
    const [{ offered_at: offeredAt }] = (await queryDatabase<{ offered_at: Date }>(databaseUrl, 'select offered_at from waiting_entries where id = $1', [
      entry.id,
    ])) as [{ offered_at: Date }]
    const after = answeredAt.filter((at) => at > offeredAt.getTime()).length
    console.info(
      `waiting list, one ticket raced: 200 buyers answered 409 in ${Math.round(performance.now() - raceStarted)} ms; the offer made ` +
        `${offeredAt.getTime() - burstAt} ms after the burst began (${200 - after} buyers answered before it, ${after} after); ` +
        `${passes} serving passes here; ${samples} stock samples, none beyond capacity`,
    )
    // The returned ticket is the offer's: held for the entry, and nothing else is held or sold anew.
    expect(await stockOf(inventoryId)).toEqual({ capacity, sold: capacity - 1, held: 1, offered: 1, public_held: 0 })
    const availability = await call(0, 'GET', `/stf/v1/events/${eventId}/availability`, seller.auth)
    expect(availability.body.data[0].inventories[0].available).toBe(0)
    expect(await commerceViolations(databaseUrl)).toEqual([])
    // The offer's email, once (sent from here: the server's worker has not polled yet).
    await fx.app.outbox.runOnce('email')
    await eventually(() => sink.received.filter((m) => m.to.includes(entry.email)).length >= 1, 10_000, 50)
    expect(sink.received.filter((m) => m.to.includes(entry.email))).toHaveLength(1)
  })
})

describe('two server processes serving one list', () => {
  // Each polls the outbox (and so the list's turns) every 100 ms and sweeps every second, by itself.
  useServers(2, { OUTBOX_POLL_MS: '100', WAITING_LIST_SWEEP_MS: '1000' })

  it('many tickets returned through both at once: each offered exactly once, in serving order, never beyond what is free', async () => {
    const capacity = 60
    const { inventoryId, orderIds } = await soldOutInventory(capacity)
    // 50 entries wanting 1, 2, 1, 2, …: the first 30 want 45 tickets, which is what comes back.
    const quantityOf = (n: number) => 1 + (n % 2)
    const entries: Awaited<ReturnType<typeof join>>[] = []
    // One by one, so that the serving order is the order of this list.
    for (let n = 0; n < 50; n++) entries.push(await join(n, inventoryId, quantityOf(n)))
    expect(entries.map((e) => e.position)).toEqual(entries.map((_, n) => n + 1))
    const served = 30
    const returned = entries.slice(0, served).reduce((sum, e) => sum + e.quantity, 0)
    expect(returned).toBe(45)

    // 45 orders of one ticket cancelled in 5 waves of 9 at once, through both processes, which serve
    // the list by themselves. As each wave is answered (its tickets free), this process serves it
    // too, five ways at once, while the next wave comes: one inventory served from many places at
    // once, with tickets free, is what its lock must make safe.
    let returnedSoFar = 0
    let inFlight = 0
    const watch = watchStock(inventoryId, () => returnedSoFar + inFlight)
    const returning = performance.now()
    const waves = 5
    const perWave = returned / waves
    const cancellations: Answer[] = []
    const bursts: Promise<unknown>[] = []
    for (let wave = 0; wave < waves; wave++) {
      const answers = await all(perWave, async (k) => {
        const n = wave * perWave + k
        inFlight++
        const answer = await call(n, 'POST', `/adm/v1/orders/${orderIds[n]}/cancel`, admin.auth)
        inFlight--
        if (answer.status === 200) returnedSoFar++
        return answer
      })
      cancellations.push(...answers)
      const { waitingList, outbox } = fx.app
      bursts.push(
        Promise.all([
          waitingList.serve(inventoryId),
          waitingList.serve(inventoryId),
          waitingList.serve(inventoryId),
          outbox.runOnce('waiting_list'),
          waitingList.sweep(),
        ]),
      )
    }
    await Promise.all(bursts)
    expect(countStatuses(cancellations)).toEqual({ 200: returned })

    // The expected state, polled: the first 30 offered.
    const offeredCount = async () => (await entriesOf(inventoryId)).filter((e) => e.status === 'offered').length
    await eventually(async () => (await offeredCount()) >= served, 30_000, 50)
    const allOfferedMs = Math.round(performance.now() - returning)
    // Served again here, by hand, on top of both workers: nothing more to offer.
    expect(await fx.app.waitingList.sweep()).toBe(0)
    await fx.app.outbox.runOnce('waiting_list')
    const { broken, samples } = await watch.stop()
    expect(broken, `${samples} samples`).toEqual([])
    console.info(
      `waiting list, two processes: ${returned} tickets returned by ${returned} cancellations in ${waves} waves, ${served} offers out ` +
        `${allOfferedMs} ms after the first; ${samples} stock samples, none beyond what was free`,
    )

    const rows = await entriesOf(inventoryId)
    // Strictly in order: the first 30 offered, the 20 behind them waiting.
    expect(rows.map((e) => e.id)).toEqual(entries.map((e) => e.id))
    expect(rows.map((e) => e.status)).toEqual(rows.map((_, n) => (n < served ? 'offered' : 'waiting')))
    // Each returned ticket offered once: the offers' quantities add up to the tickets returned, and
    // they are exactly what is held; nothing is free and nothing is held beyond capacity.
    const offeredQuantity = rows.filter((e) => e.status === 'offered').reduce((sum, e) => sum + e.quantity, 0)
    expect(offeredQuantity).toBe(returned)
    expect(await stockOf(inventoryId)).toEqual({ capacity, sold: capacity - returned, held: returned, offered: returned, public_held: 0 })
    // No entry has two baskets: no basket is two entries', and (public_held 0 above) no basket holds
    // tickets of this inventory that no entry names, as a second offer to one entry would.
    const owners = await queryDatabase<{ basket_id: string; entries: number }>(
      databaseUrl,
      `select basket_id, count(*)::int as entries from waiting_entries where inventory_id = $1 and basket_id is not null group by basket_id having count(*) > 1`,
      [inventoryId],
    )
    expect(owners).toEqual([])
    // One offer email per entry offered, none for those still waiting.
    const offeredEmails = rows.filter((e) => e.status === 'offered').map((e) => e.email)
    await eventually(() => offeredEmails.every((email) => sink.received.some((m) => m.to.includes(email))), 20_000, 50)
    await fx.app.outbox.runOnce('email')
    for (const row of rows)
      expect(
        sink.received.filter((m) => m.to.includes(row.email)),
        row.email,
      ).toHaveLength(row.status === 'offered' ? 1 : 0)
    // The positions of those waiting, as the storefront answers them: 1 to 20.
    const waiting = rows.filter((e) => e.status === 'waiting')
    const positions = await Promise.all(waiting.map(async (e, n) => (await call(n, 'GET', `/stf/v1/waiting-list/${e.id}`, seller.auth)).body.position))
    expect(positions).toEqual(waiting.map((_, n) => n + 1))
    expect(await commerceViolations(databaseUrl)).toEqual([])
  })
})

describe('joining while holds are decided', () => {
  useServers(2, { OUTBOX_POLL_MS: '60000', WAITING_LIST_SWEEP_MS: '60000' })

  /** An inventory with its list on and `left` of its `capacity` tickets still on sale (the rest recorded as sold). */
  async function withTicketsLeft(capacity: number, left: number) {
    const event = await createTestEvent(fx.app, seller.seller.id)
    const inventory = await createTestInventory(fx.app, event, { capacity, waitingList: true })
    await sellTickets(fx.app, inventory.id, capacity - left)
    return inventory.id
  }

  const joinBody = (inventoryId: string, quantity: number) => ({
    inventory_id: inventoryId,
    quantity,
    email: `racing-${randomBytes(5).toString('hex')}@example.com`,
  })

  it('a join that arrives while a hold of the last ticket is being decided waits for it under the locks, and is judged after it', async () => {
    for (const outcome of ['COMMIT', 'ROLLBACK'] as const) {
      const inventoryId = await withTicketsLeft(3, 1)
      // A hold of the last ticket, in flight: take_tickets has taken the inventory's locks, and has not committed.
      const holder = new pg.Client({ connectionString: databaseUrl })
      await holder.connect()
      try {
        await holder.query('begin')
        const basket = await holder.query<{ id: string }>(
          `insert into baskets (seller_id, status, expires_at) values ($1, 'open', now() + interval '15 minutes') returning id`,
          [seller.seller.id],
        )
        const basketId = basket.rows[0]!.id
        await holder.query('insert into basket_items (basket_id, inventory_id, quantity) values ($1, $2, 1)', [basketId, inventoryId])
        await holder.query('select * from take_tickets($1, array[$2]::uuid[], array[1], $3, null, null, null, false, true, null)', [
          seller.seller.id,
          inventoryId,
          basketId,
        ])
        const joining = call(0, 'POST', '/stf/v1/waiting-list', seller.auth, joinBody(inventoryId, 2))
        // The join waits for the inventory's queue lock (class 7301) the hold holds.
        await eventually(
          async () =>
            (
              await holder.query<{ n: number }>(
                `select count(*)::int as n from pg_locks where locktype = 'advisory' and classid = 7301 and objsubid = 2 and not granted`,
              )
            ).rows[0]!.n > 0,
          20_000,
          10,
        )
        await holder.query(outcome)
        const answer = await joining
        if (outcome === 'COMMIT') {
          // The last ticket is held: nothing is on sale, so the buyer queues.
          expect(answer.status, JSON.stringify(answer.body)).toBe(201)
          expect(answer.body).toMatchObject({ status: 'waiting', position: 1 })
        } else {
          // The hold never happened: the ticket is still on sale, so the buyer buys it instead.
          expect(answer.status, JSON.stringify(answer.body)).toBe(409)
          expect(answer.body.code).toBe('tickets_available')
          expect(await entriesOf(inventoryId)).toEqual([])
        }
      } finally {
        await holder.end()
      }
    }
  })

  it('20 buyers and 30 joiners at once: every buyer gets a ticket, a join is accepted only once none is on sale, never beyond capacity', async () => {
    const capacity = 20
    const inventoryId = await withTicketsLeft(capacity, capacity)
    const buyers = await Promise.all(Array.from({ length: capacity }, () => insertSignedInCustomer(fx.app, seller)))
    // Joiner n (for 4, 3, 2 or 1 tickets) sets off once n * 2/3 buyers are answered: the joins spread over the holds, and
    // follow the last ones. A join judged by whether its quantity fits was accepted with fewer left, and locked a buyer out.
    let answered = 0
    const buying = all(capacity, async (n) => {
      const answer = await call(n, 'POST', '/stf/v1/baskets', buyers[n]!.headers, one(inventoryId))
      answered++
      return answer
    })
    const joining = all(30, async (n) => {
      await eventually(() => answered >= Math.floor((n * capacity) / 30), 30_000, 1)
      return call(n + 1, 'POST', '/stf/v1/waiting-list', { ...seller.auth, 'x-end-user-ip': `10.9.0.${n + 1}` }, joinBody(inventoryId, 4 - (n % 4)))
    })
    const [bought, joins] = await Promise.all([buying, joining])
    // Nobody who joined while a ticket was on sale stopped its sale: every buyer holds one.
    expect(countStatuses(bought)).toEqual({ 201: capacity })
    const refused = joins.filter((j) => j.status !== 201)
    for (const j of refused) expect([j.status, j.body.code]).toEqual([409, 'tickets_available'])
    const accepted = joins.filter((j) => j.status === 201)
    const rows = await entriesOf(inventoryId)
    expect(rows.map((e) => e.id).sort()).toEqual(accepted.map((j) => j.body.id as string).sort())
    expect(rows.every((e) => e.status === 'waiting')).toBe(true)
    expect(await stockOf(inventoryId)).toEqual({ capacity, sold: 0, held: capacity, offered: 0, public_held: capacity })
    // Once all are held, joining is open again.
    expect((await call(0, 'POST', '/stf/v1/waiting-list', seller.auth, joinBody(inventoryId, 1))).status).toBe(201)
    console.info(`joining while holds are decided: ${accepted.length} of 30 joins accepted, ${refused.length} answered tickets_available, 20 of 20 buyers held`)
  })
})
