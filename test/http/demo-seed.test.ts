import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { listInventories } from '../../src/domain/catalog/list-inventories.js'
import { cancelOrder } from '../../src/domain/orders/cancel-order.js'
import { events } from '../../src/domain/catalog/events.table.js'
import { coupons } from '../../src/domain/coupons/coupons.table.js'
import { DEMO_ADMIN_EMAIL, DEMO_BUYER_EMAIL, seedDemo, tonightTimes, type DemoData } from '../../src/domain/demo/seed-demo.js'
import { ensureBuiltins } from '../../src/domain/staff/ensure-builtins.js'
import { staffUsers } from '../../src/domain/staff/users.table.js'
import { affiliates } from '../../src/domain/sellers/affiliates.table.js'
import { sellers } from '../../src/domain/sellers/sellers.table.js'
import { useTestApp } from '../build-app.js'
import { basicAuth } from '../factories/sellers.js'
import { resetDatabase, testDatabase } from '../support/database.js'
import { runPastedLines } from '../support/pasted-lines.js'
import { startServerProcess } from '../support/server-process.js'
import { eventually } from '../support/smtp-sink.js'

const ctx = useTestApp()

/** What the server passes the seed, from this app. */
const seedOptions = () => ({ tokenHmac: ctx.app.secrets.tokenHmac, codes: ctx.app.ticketCodes, verifyEmailTtlSeconds: ctx.app.config.ttl.stfVerifyEmail })

/** A date in the demo seller's time zone (the default), `YYYY-MM-DD`. */
const sellerDate = (instant: Date) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit', day: '2-digit' }).format(instant)

describe('seedDemo', () => {
  const today = new Date()
  let demo: DemoData

  beforeAll(async () => {
    demo = (await seedDemo(ctx.app.db, { ...seedOptions(), today }))!
  })

  it('creates a seller with published events from today over the next weeks, inventories with variants, a coupon and an affiliate', async () => {
    expect(demo).not.toBeNull()
    const rows = await ctx.app.db.select().from(events).where(eq(events.sellerId, demo.sellerId))
    expect(rows.length).toBeGreaterThanOrEqual(3)
    expect(rows.every((e) => e.status === 'published')).toBe(true)
    expect(rows.map((e) => e.id).sort()).toEqual([...demo.eventIds].sort())

    const todayString = sellerDate(today)
    const inSixWeeks = sellerDate(new Date(today.getTime() + 42 * 86_400_000))
    const pages = await Promise.all(demo.eventIds.map((eventId) => listInventories(ctx.app.db, { eventId, page: 1, limit: 100 })))
    for (const page of pages) {
      expect(page.rows.length).toBeGreaterThan(0)
      for (const inventory of page.rows) {
        expect(inventory.date >= todayString && inventory.date <= inSixWeeks).toBe(true)
        // Only tonight's show has sold anything (the demo order's two tickets), the front row that the demo sold out,
        // and the pix event (two tickets awaiting payment take their stock as two paid ones do).
        const sold =
          inventory.date === todayString
            ? 2
            : inventory.id === demo.waitingList.inventoryId
              ? inventory.capacity
              : inventory.id === demo.awaitPayment.inventoryId
                ? 4
                : 0
        expect(inventory.available).toBe(inventory.capacity - sold)
      }
    }
    const tonight = pages.flatMap((page) => page.rows).filter((i) => i.date === todayString)
    expect(tonight).toHaveLength(1)
    expect(tonight[0]!.eventId).toBe(demo.eventIds[1])
    expect(pages.flatMap((page) => page.rows).some((i) => i.variants.length >= 2)).toBe(true)

    const [coupon] = await ctx.app.db.select().from(coupons).where(eq(coupons.sellerId, demo.sellerId))
    expect(coupon).toMatchObject({ code: demo.couponCode, active: true })
    const [affiliate] = await ctx.app.db.select().from(affiliates).where(eq(affiliates.sellerId, demo.sellerId))
    expect(affiliate).toMatchObject({ code: demo.affiliateCode, active: true })
  })

  it('gives every event a venue and every inventory a show time and doors; tonight’s doors open no later than the hour it was seeded', async () => {
    const rows = await ctx.app.db.select().from(events).where(eq(events.sellerId, demo.sellerId))
    for (const event of rows) expect(event.venue, event.title).toMatchObject({ name: expect.any(String), city: 'São Paulo', country: 'BR' })
    const pages = await Promise.all(demo.eventIds.map((eventId) => listInventories(ctx.app.db, { eventId, page: 1, limit: 100 })))
    for (const inventory of pages.flatMap((page) => page.rows)) {
      expect(inventory.time, inventory.name).toMatch(/^\d{2}:\d{2}$/)
      expect(inventory.doorsTime! <= inventory.time!, inventory.name).toBe(true)
    }
    const seededAt = new Intl.DateTimeFormat('en-GB', { timeZone: 'America/Sao_Paulo', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(today)
    expect(demo.checkin.doorsTime <= seededAt).toBe(true)
    const tonight = tonightTimes(seededAt)
    expect(demo.checkin).toMatchObject({ time: tonight.time, doorsTime: tonight.doors_time })
  })

  it('answers credentials that work against the storefront, with and without the affiliate code', async () => {
    const headers = basicAuth(demo.sellerId, demo.apiKey)
    const res = await ctx.app.inject({ method: 'GET', url: '/stf/v1/seller', headers })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ id: demo.sellerId, affiliate: null })
    const affiliated = await ctx.app.inject({ method: 'GET', url: '/stf/v1/seller', headers: { ...headers, 'x-affiliate-code': demo.affiliateCode } })
    expect(affiliated.json().affiliate).toMatchObject({ code: demo.affiliateCode })
  })

  it('creates a demo admin whose printed password signs in to the back office, where the demo seller is', async () => {
    expect(demo.admin).toEqual({ email: DEMO_ADMIN_EMAIL, password: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/) })
    const login = await ctx.app.inject({
      method: 'POST',
      url: '/iam/v1/auth/login',
      payload: { username: demo.admin!.email, password: demo.admin!.password },
    })
    expect(login.statusCode).toBe(200)
    expect(login.json().user.roles).toEqual(['admin'])
    const listed = await ctx.app.inject({ method: 'GET', url: '/adm/v1/sellers', headers: { authorization: `Bearer ${login.json().access_token}` } })
    expect(listed.json().data.map((s: { id: string }) => s.id)).toEqual([demo.sellerId])
  })

  it('creates a check-in list per event, two scanner devices whose pairing codes pair once, and an order for today whose tickets scan ok', async () => {
    const { checkin } = demo
    expect(checkin.date).toBe(sellerDate(today))
    const paired = await ctx.app.inject({ method: 'POST', url: '/chk/v1/pair', payload: { pairing_code: checkin.pairingCode } })
    expect(paired.statusCode).toBe(201)
    expect(paired.json().device).toMatchObject({ id: checkin.deviceId, seller_id: demo.sellerId, name: 'Demo scanner', event_ids: null })
    const again = await ctx.app.inject({ method: 'POST', url: '/chk/v1/pair', payload: { pairing_code: checkin.pairingCode } })
    expect(again.json()).toMatchObject({ code: 'invalid_token' })
    // The second one, which README.md's quickstart pairs, pairs whether or not the first was.
    const second = await ctx.app.inject({ method: 'POST', url: '/chk/v1/pair', payload: { pairing_code: checkin.secondDevice.pairingCode } })
    expect(second.statusCode).toBe(201)
    expect(second.json().device).toMatchObject({ id: checkin.secondDevice.deviceId, seller_id: demo.sellerId, event_ids: null })
    const device = { authorization: `Device ${paired.json().token}` }

    const lists = await ctx.app.inject({ method: 'GET', url: '/chk/v1/lists', headers: device })
    const data = lists.json().data as { id: string; event_id: string; name: string; inventory_ids: unknown }[]
    expect(data.map((l) => [l.event_id, l.id]).sort()).toEqual(demo.eventIds.map((eventId, n) => [eventId, checkin.listIds[n]]).sort())
    expect(data.every((l) => l.name === 'Main entrance' && l.inventory_ids === null)).toBe(true)
    expect(checkin.listId).toBe(checkin.listIds[1])

    const order = await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${checkin.orderId}`, headers: basicAuth(demo.sellerId, demo.apiKey) })
    expect(order.statusCode).toBe(200)
    expect(order.json()).toMatchObject({
      status: 'confirmed',
      items: [
        {
          event_id: demo.eventIds[1],
          inventory_id: checkin.inventoryId,
          date: checkin.date,
          time: checkin.time,
          doors_time: checkin.doorsTime,
          venue: { name: 'Bar do Riso' },
          quantity: 2,
        },
      ],
    })
    const tickets = order.json().tickets as { identifier: string; code: string; status: string }[]
    expect(tickets.map((t) => t.identifier)).toEqual(checkin.identifiers)
    expect(tickets.every((t) => t.status === 'valid')).toBe(true)

    // What the printed scan line sends: the first ticket's identifier on tonight's list.
    const scan = (code: string) => ctx.app.inject({ method: 'POST', url: '/chk/v1/redeem', headers: device, payload: { code, list_ids: [checkin.listId] } })
    const byIdentifier = await scan(checkin.identifiers[0]!)
    expect(byIdentifier.json()).toMatchObject({
      status: 'ok',
      reason: null,
      list_id: checkin.listId,
      ticket: { identifier: checkin.identifiers[0], date: checkin.date, time: checkin.time, holder: { name: 'Maria Demo' }, checked_in: true },
    })
    expect((await scan(tickets[1]!.code)).json()).toMatchObject({ status: 'ok', ticket: { identifier: checkin.identifiers[1] } })
    expect((await scan(checkin.identifiers[0]!)).json()).toMatchObject({ status: 'refused', reason: 'already_redeemed' })
  })

  it('sells out one inventory with its waiting list on: a buyer can join it, and cancelling the order serves the list', async () => {
    const headers = basicAuth(demo.sellerId, demo.apiKey)
    const { inventoryId, orderId } = demo.waitingList
    const join = await ctx.app.inject({
      method: 'POST',
      url: '/stf/v1/waiting-list',
      headers,
      payload: { inventory_id: inventoryId, quantity: 1, email: 'ana@example.com' },
    })
    expect(join.statusCode, join.body).toBe(201)
    expect(join.json()).toMatchObject({ status: 'waiting', position: 1 })
    const order = await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${orderId}`, headers })
    expect(order.json()).toMatchObject({ status: 'confirmed', items: [{ inventory_id: inventoryId, quantity: 2 }] })
    await cancelOrder(ctx.app.db, { codes: ctx.app.ticketCodes, orderId, actor: { type: 'system' } })
    expect(await ctx.app.waitingList.sweep()).toBe(1)
    const entry = await ctx.app.inject({ method: 'GET', url: `/stf/v1/waiting-list/${join.json().id}`, headers })
    expect(entry.json()).toMatchObject({ status: 'offered', position: null })
  })

  it('creates a theatre plan (rows A–J of 14 seats, an aisle after the seventh) and a play selling its two categories, where best available holds seats', async () => {
    const { seating } = demo
    expect(demo.eventIds).toContain(seating.eventId)
    const headers = basicAuth(demo.sellerId, demo.apiKey)
    const plan = await ctx.app.inject({ method: 'GET', url: `/stf/v1/seating-plans/${seating.planId}`, headers })
    expect(plan.statusCode, plan.body).toBe(200)
    expect(plan.json()).toMatchObject({
      seats: 140,
      categories: [expect.objectContaining({ name: 'Plateia', seats: 84 }), expect.objectContaining({ name: 'Balcão', seats: 56 })],
    })
    expect(plan.json().plan.zones[0].rows.map((row: { row_number: string }) => row.row_number)).toEqual([...'ABCDEFGHIJ'])
    const { rows } = await listInventories(ctx.app.db, { eventId: seating.eventId, page: 1, limit: 100 })
    const byId = new Map(rows.map((row) => [row.id, row]))
    expect(byId.get(seating.inventoryIds.plateia)).toMatchObject({ date: seating.date, capacity: 84, available: 84 })
    expect(byId.get(seating.inventoryIds.balcao)).toMatchObject({ date: seating.date, capacity: 56, available: 56 })
    // What the printed line sends: two best-available seats of the Plateia, in the middle of row A by the aisle.
    const basket = await ctx.app.inject({
      method: 'POST',
      url: '/stf/v1/baskets',
      headers,
      payload: { items: [{ inventory_id: seating.inventoryIds.plateia, quantity: 2 }] },
    })
    expect(basket.statusCode, basket.body).toBe(201)
    expect(basket.json().items[0].seats).toEqual([
      { id: 'Teatro-A-6', zone: 'Teatro', row: 'A', number: '6', category: 'Plateia' },
      { id: 'Teatro-A-7', zone: 'Teatro', row: 'A', number: '7', category: 'Plateia' },
    ])
    // The seats the printed seat map rings.
    expect(seating.bestTwo).toEqual(['Teatro-A-6', 'Teatro-A-7'])
  })

  it('sells an event by pix awaiting payment, with an order awaiting its pix and one paid after it, both in the back office', async () => {
    const { awaitPayment: pix } = demo
    const [event] = await ctx.app.db.select().from(events).where(eq(events.id, pix.eventId))
    expect(event).toMatchObject({ title: 'Pix na hora — pague em 30 minutos', status: 'published' })
    expect(demo.eventIds).toContain(pix.eventId)
    const headers = basicAuth(demo.sellerId, demo.apiKey)
    const read = async (orderId: string) => (await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${orderId}`, headers })).json()

    const pending = await read(pix.pendingOrderId)
    expect(pending).toMatchObject({ status: 'pending', payment_due_at: pix.paymentDueAt, paid_total: 0, payments: [], payment: { method: 'pix' } })
    // The seller's payment_minutes of pix, 30 by default, from the checkout.
    expect(Date.parse(pending.payment_due_at) - Date.parse(pending.created_at)).toBe(30 * 60_000)
    expect(pending.tickets).toEqual([expect.objectContaining({ status: 'pending', code: null }), expect.objectContaining({ status: 'pending', code: null })])

    const paid = await read(pix.paidOrderId)
    expect(paid).toMatchObject({ status: 'confirmed', paid_total: paid.totals.total, payments: [{ amount: 2 * pix.price, method: 'pix' }] })
    expect(paid.totals.total).toBe(2 * pix.price)
    expect(paid.payment_due_at).not.toBeNull()
    expect(paid.tickets.every((t: { status: string; code: string | null }) => t.status === 'valid' && t.code !== null)).toBe(true)

    const login = await ctx.app.inject({ method: 'POST', url: '/iam/v1/auth/login', payload: { username: demo.admin!.email, password: demo.admin!.password } })
    const staff = { authorization: `Bearer ${login.json().access_token}` }
    const listed = async (status: string) =>
      (await ctx.app.inject({ method: 'GET', url: `/adm/v1/sellers/${demo.sellerId}/orders?status=${status}`, headers: staff }))
        .json()
        .data.map((o: { id: string }) => o.id)
    expect(await listed('pending')).toEqual([pix.pendingOrderId])
    expect(await listed('confirmed')).toContain(pix.paidOrderId)
  })

  it("lets the demo buyer sign in with the printed password, check out a ticket awaiting pix and pay it, as the banner's lines do", async () => {
    const { awaitPayment: pix, buyer } = demo
    expect(buyer).toEqual({ email: DEMO_BUYER_EMAIL, password: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/) })
    const headers = basicAuth(demo.sellerId, demo.apiKey)
    const login = await ctx.app.inject({ method: 'POST', url: '/stf/v1/auth/login', headers, payload: buyer })
    expect(login.statusCode, login.body).toBe(200)
    const asBuyer = { ...headers, 'x-customer-token': login.json().access_token }
    const basket = await ctx.app.inject({
      method: 'POST',
      url: '/stf/v1/baskets',
      headers,
      payload: { items: [{ inventory_id: pix.inventoryId, quantity: 1 }] },
    })
    expect(basket.statusCode, basket.body).toBe(201)
    const checkout = await ctx.app.inject({
      method: 'POST',
      url: `/stf/v1/baskets/${basket.json().id}/checkout`,
      headers: asBuyer,
      payload: { payment_method: 'pix', await_payment: true },
    })
    expect(checkout.statusCode, checkout.body).toBe(201)
    const order = checkout.json()
    expect(order).toMatchObject({ status: 'pending', payment_due_at: expect.any(String), totals: { total: pix.price } })
    const pay = await ctx.app.inject({
      method: 'POST',
      url: `/stf/v1/orders/${order.id}/payments`,
      headers,
      payload: { amount: pix.price, reference: 'pix-demo-1' },
    })
    expect(pay.statusCode, pay.body).toBe(201)
    const paid = await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}`, headers })
    expect(paid.json()).toMatchObject({ status: 'confirmed', paid_total: pix.price, tickets: [{ status: 'valid', code: expect.any(String) }] })
  })

  it('changes nothing once a seller exists', async () => {
    expect(await seedDemo(ctx.app.db, seedOptions())).toBeNull()
    expect(await ctx.app.db.select().from(sellers)).toHaveLength(1)
  })

  it('reports the configured admin instead of creating one', async () => {
    await resetDatabase(await testDatabase())
    await ensureBuiltins(ctx.app.db)
    const seeded = (await seedDemo(ctx.app.db, { ...seedOptions(), adminEmail: 'boss@example.com' }))!
    expect(seeded.admin).toEqual({ email: 'boss@example.com', password: null })
    expect(await ctx.app.db.select().from(staffUsers)).toEqual([])
  })
})

describe('tonightTimes: the demo’s show tonight, from the hour it is seeded', () => {
  it('opens the doors at 19:00, or at the seed’s half hour when earlier, and starts the show an hour later: the window (2 h before the doors) is open at once', () => {
    expect(tonightTimes('23:59')).toEqual({ doors_time: '19:00', time: '20:00' })
    expect(tonightTimes('19:00')).toEqual({ doors_time: '19:00', time: '20:00' })
    expect(tonightTimes('18:45')).toEqual({ doors_time: '18:30', time: '19:30' })
    expect(tonightTimes('10:17')).toEqual({ doors_time: '10:00', time: '11:00' })
    expect(tonightTimes('00:10')).toEqual({ doors_time: '00:00', time: '01:00' })
  })
})

describe('npm start with a new embedded database', () => {
  it('seeds once, prints working storefront credentials, the quickstart’s variables, curl lines that pair the demo device and scan the demo ticket, check out as a guest and as the demo buyer, hold seats, and check out awaiting pix and pay, and leaves the data alone on the next start', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'boxoffice-demo-'))
    const env = { SEED_DEMO: 'true', DATA_DIR: dataDir }
    // It seeds before it listens: on a busy machine that takes a while.
    const first = await startServerProcess(env, { databaseUrl: '', startWithinMs: 150_000 })
    let sellerId: string
    let apiKey: string
    try {
      // The banner is printed once the server listens, a moment after it starts answering.
      await eventually(() => /chk\/v1\/redeem\n/.test(first.output()), 30_000)
      const output = first.output()
      sellerId = /seller id:\s+([0-9a-f-]{36})/.exec(output)![1]!
      apiKey = /API key:\s+(sk_[A-Za-z0-9_-]+)/.exec(output)![1]!
      expect(output).toContain(`curl -u ${sellerId}:${apiKey} ${first.baseUrl}/stf/v1/events`)
      const res = await fetch(`${first.baseUrl}/stf/v1/seller`, { headers: basicAuth(sellerId, apiKey) })
      expect(res.status).toBe(200)
      expect(await res.json()).toMatchObject({ id: sellerId, name: 'Demo Tickets' })
      const [, email, password] = /admin login:\s+(\S+) \/ (\S+)/.exec(output)!
      expect(email).toBe(DEMO_ADMIN_EMAIL)
      const login = await fetch(`${first.baseUrl}/iam/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: email, password }),
      })
      expect(login.status).toBe(200)
      const affiliated = await fetch(`${first.baseUrl}/stf/v1/seller`, { headers: { ...basicAuth(sellerId, apiKey), 'x-affiliate-code': 'PARCEIRO' } })
      expect(((await affiliated.json()) as { affiliate: unknown }).affiliate).toMatchObject({ code: 'PARCEIRO' })

      const pairingCode = /pairing code ([A-Z2-7]{4}(?:-[A-Z2-7]{4}){4})/.exec(output)![1]!
      const [identifier] = /tickets ([A-Z2-7]{26}) [A-Z2-7]{26}\n/.exec(output)!.slice(1)
      const listId = /"Main entrance" ([0-9a-f-]{36})/.exec(output)![1]!
      const pair = /^ +(TOKEN=\$\(curl .*)$/m.exec(output)![1]!
      const scan = /^ +(curl .*\/chk\/v1\/redeem)$/m.exec(output)![1]!
      expect(pair).toContain(`'{"pairing_code":"${pairingCode}"}' ${first.baseUrl}/chk/v1/pair |`)
      expect(scan).toContain('-H "Authorization: Device $TOKEN"')
      expect(scan).toContain(`'{"code":"${identifier}","list_ids":["${listId}"]}' ${first.baseUrl}/chk/v1/redeem`)
      const [token, answer] = (await runPastedLines([pair, scan])).stdout.trim().split('\n')
      expect(token).toMatch(/^dev_/)
      expect(JSON.parse(answer!)).toMatchObject({ status: 'ok', reason: null, list_id: listId, ticket: { identifier, status: 'valid', checked_in: true } })

      // README.md's quickstart starts with the variables printed on one line, the server's own address first.
      const quickstart = /^ {4}(BASE=.*)$/m.exec(output)![1]!
      expect(quickstart).toMatch(
        new RegExp(`^BASE=${first.baseUrl} SELLER=${sellerId} KEY=${apiKey} INVENTORY=[0-9a-f-]{36} LIST=${listId} PAIRING=[A-Z2-7]{4}(-[A-Z2-7]{4}){4}$`),
      )
      expect(quickstart).not.toContain(pairingCode)

      // Checkout: tonight's ticket as a guest (run by readme-quickstart.test.ts, with guest checkout), and as the demo buyer.
      const checkout = output.slice(output.indexOf('  checkout:'), output.indexOf('  waiting list:'))
      const asGuest = /^ {4}(BASKET=.*)$/m.exec(checkout)![1]!
      expect(asGuest).toContain(
        `'{"payment_method":"pix","buyer":{"email":"ana@example.com","name":"Ana Souza"}}' ${first.baseUrl}/stf/v1/baskets/$BASKET/checkout |`,
      )
      expect(asGuest).not.toContain('X-Customer-Token')
      const asBuyer = /^ {4}(CUSTOMER=.*)$/m.exec(checkout)![1]!
      expect(asBuyer).toContain(
        `-H "X-Customer-Token: $CUSTOMER" -H 'content-type: application/json' -d '{"payment_method":"pix"}' ${first.baseUrl}/stf/v1/baskets/$BASKET/checkout |`,
      )
      expect((await runPastedLines([asBuyer])).stdout).toMatch(/^confirmed [0-9a-f-]{36}\n$/)

      // Reserved seats: the line that holds two best-available seats, and the seat map's address ringing those two.
      const hold = /^ +(curl .*\/stf\/v1\/baskets)$/m.exec(output)![1]!
      expect(hold).toContain(`curl -s -u ${sellerId}:${apiKey} `)
      const basket = JSON.parse((await runPastedLines([hold])).stdout) as { items: { seats: { id: string }[] }[] }
      const held = basket.items[0]!.seats.map((seat) => seat.id)
      expect(held).toEqual(['Teatro-A-6', 'Teatro-A-7'])
      const map = new RegExp(`(${first.baseUrl}/stf/v1/events/[0-9a-f-]{36}/seats\\.svg\\?date=\\d{4}-\\d{2}-\\d{2}&highlight=${held.join(',')})\n`).exec(
        output,
      )![1]!
      const svg = await (await fetch(map, { headers: basicAuth(sellerId, apiKey) })).text()
      expect([...svg.matchAll(/class="highlight" data-seat="([^"]+)"/g)].map((m) => m[1])).toEqual(held)

      // Awaiting pix: as the demo buyer (her printed password), check out awaiting pix, pay, read the status.
      const [, buyerEmail, buyerPassword] = /buyer login:\s+(\S+) \/ (\S+)/.exec(output)!
      expect(buyerEmail).toBe(DEMO_BUYER_EMAIL)
      const pix = output.slice(output.indexOf('  awaiting pix:'))
      const pixLines = ['CUSTOMER=', 'BASKET=', 'ORDER=', 'curl .*/payments', 'curl .*\\$ORDER \\|'].map(
        (start) => new RegExp(`^ {4}(${start}.*)$`, 'm').exec(pix)![1]!,
      )
      expect(pixLines[0]).toContain(`'{"email":"${buyerEmail}","password":"${buyerPassword}"}' ${first.baseUrl}/stf/v1/auth/login |`)
      expect(pixLines[2]).toContain(`'{"payment_method":"pix","await_payment":true}' ${first.baseUrl}/stf/v1/baskets/$BASKET/checkout |`)
      const { stdout, stderr } = await runPastedLines(pixLines)
      // The checkout's status and deadline on stderr; the payment (201's body), then the order's status, on stdout.
      expect(stderr).toMatch(/^pending \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\n$/)
      const [, payment, status] = /^(\{.*\})(\w+)\n$/.exec(stdout)!
      expect(JSON.parse(payment!)).toMatchObject({ amount: 4000, method: 'pix', reference: 'pix-demo-1' })
      expect(status).toBe('confirmed')
    } finally {
      expect(await first.stop()).toBe(0)
    }

    const second = await startServerProcess(env, { databaseUrl: '' })
    try {
      expect(second.output()).not.toContain('Demo data created')
      const res = await fetch(`${second.baseUrl}/stf/v1/seller`, { headers: basicAuth(sellerId, apiKey) })
      expect(res.status).toBe(200)
    } finally {
      await second.stop()
    }
  }, 240_000)

  it('seeds nothing with SEED_DEMO=false', async () => {
    const server = await startServerProcess({ SEED_DEMO: 'false' }, { databaseUrl: '' })
    try {
      expect(server.output()).not.toContain('Demo data created')
    } finally {
      await server.stop()
    }
  }, 120_000)
})
