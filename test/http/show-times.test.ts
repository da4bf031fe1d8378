import { and, eq, sql } from 'drizzle-orm'
import { PDFDocument } from 'pdf-lib'
import { beforeAll, describe, expect, it } from 'vitest'
import { checkins } from '../../src/domain/checkin/checkin.table.js'
import { outboxEmails } from '../../src/platform/mail/outbox.table.js'
import { useTestApp } from '../build-app.js'
import { dayFromToday } from '../factories/catalog.js'
import { useTwoSellers } from '../factories/sellers.js'
import type { AdmClient } from '../support/adm-client.js'
import { buyTickets, checkinAdmin, feedPage, orderAwaitingPayment, pairedDevice, scanner } from '../support/checkin.js'
import { expectError } from '../support/customer-auth.js'
import { pdfText } from '../support/pdf-text.js'

/**
 * docs/selling.md, show times and venues: an event's venue and an inventory's show and doors times,
 * set in the back office, shown wherever a ticket is (the catalogue, orders, the PDF, the emails,
 * the gates), read live (a moved show shows moved), and the door's window of entry opening 2 h
 * before the doors. Seller a sells in São Paulo (UTC-3, no daylight saving since 2019).
 */
const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx, { a: { settings: { timezone: 'America/Sao_Paulo' } }, b: { settings: { timezone: 'UTC' } } })
let adm: AdmClient

const VENUE = { name: 'Arena Azul', address: 'Rua Augusta, 1500', city: 'São Paulo', state: 'SP', country: 'BR' }

beforeAll(async () => {
  adm = await checkinAdmin(ctx.app)
})

/** An event of seller a through the back office, published. */
async function newEvent(body: Record<string, unknown> = {}) {
  const res = await adm.post(`/sellers/${a.seller.id}/events`, { title: 'Show', status: 'published', ...body })
  expect(res.statusCode, res.body).toBe(201)
  return res.json() as { id: string; venue: unknown }
}

/** An inventory of the event through the back office. */
async function newInventory(eventId: string, body: Record<string, unknown> = {}) {
  const res = await adm.post(`/events/${eventId}/inventories`, { date: dayFromToday(7), name: 'Pista', price: 5000, capacity: 100, ...body })
  expect(res.statusCode, res.body).toBe(201)
  return res.json() as { id: string; time: string | null; doors_time: string | null }
}

/** A 400 validation_error whose details name exactly this path (among others, when `only` is false). */
function expectInvalidAt(res: Awaited<ReturnType<AdmClient['post']>>, path: string) {
  expectError(res, 400, 'validation_error')
  expect(res.json().details.map((detail: { path: string }) => detail.path)).toContain(path)
}

describe('the back office: an event’s venue', () => {
  it('is kept as given on create (the country upper case), and shown by the event', async () => {
    const event = await newEvent({ venue: { ...VENUE, country: 'br' } })
    expect(event.venue).toEqual(VENUE)
    expect((await adm.get(`/events/${event.id}`)).json().venue).toEqual(VENUE)
    expect((await newEvent({ venue: { name: 'Somewhere' } })).venue).toEqual({ name: 'Somewhere' })
    expect((await newEvent()).venue).toBeNull()
  })

  it('on update: absent leaves it, an object replaces it whole, null clears it', async () => {
    const event = await newEvent({ venue: VENUE })
    expect((await adm.put(`/events/${event.id}`, { title: 'Renamed' })).json().venue).toEqual(VENUE)
    expect((await adm.put(`/events/${event.id}`, { venue: { name: 'Teatro', city: 'Rio de Janeiro' } })).json().venue).toEqual({
      name: 'Teatro',
      city: 'Rio de Janeiro',
    })
    expect((await adm.put(`/events/${event.id}`, { venue: null })).json().venue).toBeNull()
  })

  it('refuses a venue without a name, an empty or huge part, an unknown field or a country that is no code: 400 at its path', async () => {
    const event = await newEvent()
    const huge = 'x'.repeat(100 * 1024)
    const cases: [unknown, string][] = [
      [{ city: 'São Paulo' }, 'venue.name'],
      [{ name: '' }, 'venue.name'],
      [{ name: '   ' }, 'venue.name'],
      [{ name: 'x'.repeat(201) }, 'venue.name'],
      [{ name: huge }, 'venue.name'],
      [{ name: 'Arena', address: huge }, 'venue.address'],
      [{ name: 'Arena', address: 'x'.repeat(501) }, 'venue.address'],
      [{ name: 'Arena', city: 'x'.repeat(101) }, 'venue.city'],
      [{ name: 'Arena', state: '' }, 'venue.state'],
      [{ name: 'Arena', country: 'BRA' }, 'venue.country'],
      [{ name: 'Arena', country: 'Brasil' }, 'venue.country'],
      [{ name: 'Arena', capacity: 5000 }, 'venue.capacity'],
      ['Arena Azul', 'venue'],
    ]
    for (const [venue, path] of cases) {
      expectInvalidAt(await adm.post(`/sellers/${a.seller.id}/events`, { title: 'Bad venue', venue }), path)
      expectInvalidAt(await adm.put(`/events/${event.id}`, { venue }), path)
    }
    expect((await adm.get(`/events/${event.id}`)).json().venue).toBeNull()
    // The longest accepted.
    const longest = { name: 'n'.repeat(200), address: 'a'.repeat(500), city: 'c'.repeat(100), state: 's'.repeat(100), country: 'PT' }
    expect((await adm.put(`/events/${event.id}`, { venue: longest })).json().venue).toEqual(longest)
  })
})

describe('the back office: an inventory’s show and doors times', () => {
  it('keeps them on create (null when not said), and lists them', async () => {
    const event = await newEvent()
    const shown = await newInventory(event.id, { time: '20:00', doors_time: '19:00' })
    expect(shown).toMatchObject({ time: '20:00', doors_time: '19:00' })
    expect(await newInventory(event.id, { name: 'Doors only', doors_time: '18:30' })).toMatchObject({ time: null, doors_time: '18:30' })
    expect(await newInventory(event.id, { name: 'Same time', time: '21:00', doors_time: '21:00' })).toMatchObject({ time: '21:00', doors_time: '21:00' })
    expect(await newInventory(event.id, { name: 'Unsaid' })).toMatchObject({ time: null, doors_time: null })
    const listed = (await adm.get(`/events/${event.id}/inventories`)).json().data
    expect(listed.find((i: { id: string }) => i.id === shown.id)).toMatchObject({ time: '20:00', doors_time: '19:00' })
  })

  it('refuses a time that is not HH:MM of a day, and doors after the show: 400 at time or doors_time', async () => {
    const event = await newEvent()
    for (const time of ['25:00', '9:5', '24:00', '20:60', '20:00:00', '8pm', '', ' 20:00']) {
      expectInvalidAt(await adm.post(`/events/${event.id}/inventories`, { date: dayFromToday(7), name: 'Bad', price: 0, capacity: 1, time }), 'time')
      expectInvalidAt(
        await adm.post(`/events/${event.id}/inventories`, { date: dayFromToday(7), name: 'Bad', price: 0, capacity: 1, doors_time: time }),
        'doors_time',
      )
    }
    const late = { date: dayFromToday(7), name: 'Late doors', price: 0, capacity: 1, time: '20:00', doors_time: '20:01' }
    expectInvalidAt(await adm.post(`/events/${event.id}/inventories`, late), 'doors_time')
    expect((await adm.get(`/events/${event.id}/inventories`)).json().data).toEqual([])
  })

  it('on update: absent leaves them, null clears one, and doors after the show is refused against the stored other too', async () => {
    const event = await newEvent()
    const inventory = await newInventory(event.id, { time: '20:00', doors_time: '19:00' })
    const put = (body: object) => adm.put(`/inventories/${inventory.id}`, body)
    expect((await put({ name: 'Renamed' })).json()).toMatchObject({ time: '20:00', doors_time: '19:00' })
    // Only the doors, after the stored show time; only the show, before the stored doors; both in one body.
    expectInvalidAt(await put({ doors_time: '20:30' }), 'doors_time')
    expectInvalidAt(await put({ time: '18:00' }), 'doors_time')
    expectInvalidAt(await put({ time: '18:00', doors_time: '18:30' }), 'doors_time')
    expectInvalidAt(await put({ time: '25:00' }), 'time')
    expect((await adm.get(`/events/${event.id}/inventories`)).json().data[0]).toMatchObject({ time: '20:00', doors_time: '19:00' })
    // Moving both together is fine, one after the other too.
    expect((await put({ time: '18:00', doors_time: '17:00' })).json()).toMatchObject({ time: '18:00', doors_time: '17:00' })
    expect((await put({ doors_time: '18:00' })).json()).toMatchObject({ time: '18:00', doors_time: '18:00' })
    // Cleared: the show time unsaid, any doors time goes.
    expect((await put({ time: null })).json()).toMatchObject({ time: null, doors_time: '18:00' })
    expect((await put({ doors_time: '23:00' })).json()).toMatchObject({ time: null, doors_time: '23:00' })
    expect((await put({ doors_time: null })).json()).toMatchObject({ time: null, doors_time: null })
  })
})

describe('the storefront', () => {
  it('shows the venue with the event (detail and listing) and the times with the availability, by time within a date', async () => {
    const event = await newEvent({ title: 'Two shows a day', venue: VENUE })
    const evening = await newInventory(event.id, { name: 'Evening', price: 1000, time: '20:00', doors_time: '19:00' })
    const matinee = await newInventory(event.id, { name: 'Matinee', price: 9000, time: '16:00', doors_time: null })
    const get = (url: string) => ctx.app.inject({ method: 'GET', url: `/stf/v1${url}`, headers: a.auth })
    expect((await get(`/events/${event.id}`)).json().venue).toEqual(VENUE)
    const listed = (await get('/events?q=Two%20shows')).json().data
    expect(listed).toMatchObject([{ id: event.id, venue: VENUE }])
    const availability = (await get(`/events/${event.id}/availability`)).json()
    expect(availability.data).toEqual([
      {
        date: dayFromToday(7),
        inventories: [
          expect.objectContaining({ id: matinee.id, time: '16:00', doors_time: null }),
          expect.objectContaining({ id: evening.id, time: '20:00', doors_time: '19:00' }),
        ],
      },
    ])
    // Another seller's credentials see none of it.
    expect((await ctx.app.inject({ method: 'GET', url: `/stf/v1/events/${event.id}`, headers: b.auth })).statusCode).toBe(404)
  })
})

describe('orders, the PDF and the emails', () => {
  let eventId: string
  let inventoryId: string

  beforeAll(async () => {
    eventId = (await newEvent({ title: 'Noite de Jazz', venue: VENUE })).id
    inventoryId = (await newInventory(eventId, { date: '2031-12-12', time: '20:00', doors_time: '19:00' })).id
  })

  const readOrder = async (orderId: string) => (await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${orderId}`, headers: a.auth })).json()

  it('shows each item’s show time, doors and venue at checkout and at every read, as they are now: a moved show shows moved', async () => {
    const event = await newEvent({ title: 'Moved show', venue: { name: 'Old hall' } })
    const inventory = await newInventory(event.id, { time: '20:00', doors_time: '19:00' })
    const order = await buyTickets(ctx.app, a, [{ inventory_id: inventory.id, quantity: 1 }])
    expect(order).toMatchObject({ items: [{ inventory_id: inventory.id, time: '20:00', doors_time: '19:00', venue: { name: 'Old hall' } }] })
    expect((await adm.put(`/inventories/${inventory.id}`, { time: '21:30', doors_time: '20:30' })).statusCode).toBe(200)
    expect((await adm.put(`/events/${event.id}`, { venue: VENUE })).statusCode).toBe(200)
    expect((await readOrder(order.id)).items).toMatchObject([{ time: '21:30', doors_time: '20:30', venue: VENUE }])
    expect((await adm.get(`/orders/${order.id}`)).json().items).toMatchObject([{ time: '21:30', doors_time: '20:30', venue: VENUE }])
    expect((await adm.put(`/inventories/${inventory.id}`, { time: null, doors_time: null })).statusCode).toBe(200)
    expect((await adm.put(`/events/${event.id}`, { venue: null })).statusCode).toBe(200)
    expect((await readOrder(order.id)).items).toMatchObject([{ time: null, doors_time: null, venue: null }])
  })

  it('prints the date with the show time, the doors, and the venue’s name and address on each ticket (pt-BR)', async () => {
    const order = await buyTickets(ctx.app, a, [{ inventory_id: inventoryId, quantity: 1 }])
    const res = await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}/tickets.pdf`, headers: a.auth })
    expect(res.statusCode).toBe(200)
    const text = pdfText(await PDFDocument.load(res.rawPayload))
    expect(text).toContain('Noite de Jazz')
    expect(text).toContain('sexta-feira, 12 de dezembro de 2031 às 20:00')
    expect(text).toContain('Abertura dos portões às 19:00')
    expect(text).toContain('Arena Azul')
    expect(text).toContain('Rua Augusta, 1500, São Paulo, SP, Brasil')
  })

  it('writes the show time and venue where the buyer’s emails write the date: awaiting payment, then paid after the show moved', async () => {
    const order = await orderAwaitingPayment(ctx.app, a, [{ inventory_id: inventoryId, quantity: 2 }])
    const emails = async (kind: string) =>
      (await ctx.app.db.select().from(outboxEmails).where(eq(outboxEmails.kind, kind))).map((email) => email.text).filter((text) => text.includes(order.id))
    const [pending] = await emails('stf.order_pending')
    expect(pending).toContain(
      '- 2 × Noite de Jazz — Pista, sexta-feira, 12 de dezembro de 2031 às 20:00 (abertura dos portões às 19:00), ' +
        'Arena Azul (Rua Augusta, 1500, São Paulo, SP, Brasil)',
    )
    expect((await adm.put(`/inventories/${inventoryId}`, { time: '21:00' })).statusCode).toBe(200)
    const total = (await readOrder(order.id)).totals.total as number
    const pay = await ctx.app.inject({
      method: 'POST',
      url: `/stf/v1/orders/${order.id}/payments`,
      headers: a.auth,
      payload: { amount: total, reference: 'pix-1' },
    })
    expect(pay.statusCode, pay.body).toBe(201)
    const [confirmed] = await emails('stf.order_confirmed')
    const identifier = order.tickets[0]!.identifier
    expect(confirmed).toContain(
      `- Ingresso ${identifier}: Noite de Jazz — Pista, sexta-feira, 12 de dezembro de 2031 às 21:00 (abertura dos portões às 19:00), ` +
        'Arena Azul (Rua Augusta, 1500, São Paulo, SP, Brasil)',
    )
    expect(confirmed).not.toContain('às 20:00')
    expect((await adm.put(`/inventories/${inventoryId}`, { time: '20:00' })).statusCode).toBe(200)
  })
})

describe('at the gates', () => {
  let listId: string
  let inventoryId: string
  let gate: ReturnType<typeof scanner>
  /** Two days ago in São Paulo: scans are placed in its window by their own `scanned_at`, never by waiting. */
  const day = dayFromToday(-2)
  const next = dayFromToday(-1)
  const at = (instant: string) => new Date(instant).toISOString()

  beforeAll(async () => {
    const event = await newEvent({ title: 'Door rules', venue: VENUE })
    inventoryId = (await newInventory(event.id, { date: dayFromToday(7), time: '20:00', doors_time: '19:00' })).id
    listId = (await adm.post(`/events/${event.id}/checkin-lists`, { name: 'Main gate' })).json().id
    gate = scanner(ctx.app, (await pairedDevice(ctx.app, adm, a.seller.id, { name: 'Gate', event_ids: [event.id] })).headers)
  })

  /** Tickets bought while the show is on sale, then the show moved to two days ago (the back office may date it so). */
  async function ticketsOfPastShow(count: number, times: { time?: string | null; doors_time?: string | null }) {
    expect((await adm.put(`/inventories/${inventoryId}`, { date: dayFromToday(7) })).statusCode).toBe(200)
    const { tickets } = await buyTickets(ctx.app, a, [{ inventory_id: inventoryId, quantity: count }])
    const moved = await adm.put(`/inventories/${inventoryId}`, { date: day, time: null, doors_time: null, ...times })
    expect(moved.statusCode, moved.body).toBe(200)
    return tickets
  }

  const redeem = (code: string, scannedAt: string, extra: object = {}) =>
    gate.post('/redeem', { code, list_ids: [listId], scanned_at: at(scannedAt), ...extra })

  it('opens the window 2 h before the doors, in the seller’s time zone, and closes it at 06:00 of the next day; the feed gives the same instants', async () => {
    const [first, second] = await ticketsOfPastShow(2, { time: '20:00', doors_time: '19:00' })
    // Doors at 19:00 in São Paulo: from 17:00 there (20:00 UTC) until 06:00 the next day (09:00 UTC).
    const opens = `${day}T20:00:00.000Z`
    const closes = `${next}T09:00:00.000Z`
    expect((await redeem(first!.identifier, `${day}T19:59:59.999Z`)).json()).toMatchObject({
      status: 'refused',
      reason: 'invalid_time',
      ticket: { date: day, time: '20:00', doors_time: '19:00', venue: VENUE, entry_opens_at: opens, entry_closes_at: closes },
    })
    expect((await redeem(first!.identifier, opens)).json()).toMatchObject({ status: 'ok', ticket: { time: '20:00', checked_in: true } })
    expect((await redeem(second!.identifier, `${next}T09:00:00.000Z`)).json()).toMatchObject({ status: 'refused', reason: 'invalid_time' })
    expect((await redeem(second!.identifier, `${next}T08:59:59.999Z`)).json()).toMatchObject({ status: 'ok' })

    const feed = await feedPage(gate, listId, undefined, [first!.identifier, second!.identifier])
    const kept = feed.data.find((ticket) => ticket.identifier === first!.identifier) as unknown as Record<string, unknown>
    expect(kept).toMatchObject({ date: day, time: '20:00', doors_time: '19:00', venue: VENUE, entry_opens_at: opens, entry_closes_at: closes })
    const found = (await gate.get(`/search?list_id=${listId}&q=${second!.identifier.slice(0, 6)}`)).json().data
    expect(found).toEqual([expect.objectContaining({ identifier: second!.identifier, time: '20:00', venue: VENUE, entry_opens_at: opens })])
  })

  it('opens it at 00:00 of the date without doors, and the day before for doors at 01:00; a batch of forced offline scans is judged by the same window', async () => {
    const [unsaid] = await ticketsOfPastShow(1, { time: '20:00' })
    // 00:00 in São Paulo is 03:00 UTC.
    expect((await redeem(unsaid!.identifier, `${day}T02:59:59.999Z`)).json()).toMatchObject({
      reason: 'invalid_time',
      ticket: { doors_time: null, entry_opens_at: `${day}T03:00:00.000Z` },
    })
    expect((await redeem(unsaid!.identifier, `${day}T03:00:00.000Z`)).json()).toMatchObject({ status: 'ok' })

    const [early, forced] = await ticketsOfPastShow(2, { time: '02:00', doors_time: '01:00' })
    // Doors at 01:00: the window opens at 23:00 the day before, 02:00 UTC on the date.
    const batch = await gate.post('/redeem/batch', {
      scans: [
        { code: early!.identifier, list_ids: [listId], scanned_at: at(`${day}T01:59:59.999Z`), nonce: 'early-1' },
        { code: early!.identifier, list_ids: [listId], scanned_at: at(`${day}T02:00:00.000Z`), nonce: 'early-2' },
        { code: forced!.identifier, list_ids: [listId], scanned_at: at(`${day}T01:00:00.000Z`), nonce: 'forced-1', force: true },
      ],
    })
    expect(batch.json().results.map((r: { status: string; reason: string | null }) => [r.status, r.reason])).toEqual([
      ['refused', 'invalid_time'],
      ['ok', null],
      ['ok', 'invalid_time'],
    ])
    expect(batch.json().results[1].ticket).toMatchObject({ time: '02:00', doors_time: '01:00', entry_opens_at: `${day}T02:00:00.000Z` })
  })

  it('moves the window with the doors: the feed returns the inventory’s tickets with the new window', async () => {
    const [ticket] = await ticketsOfPastShow(1, { time: '20:00', doors_time: '19:00' })
    const before = await feedPage(gate, listId, undefined, [ticket!.identifier])
    const doorsLater = await adm.put(`/inventories/${inventoryId}`, { time: '22:00', doors_time: '21:30' })
    expect(doorsLater.statusCode).toBe(200)
    const changed = await feedPage(gate, listId, before.next_cursor, [ticket!.identifier])
    // 21:30 − 2 h = 19:30 in São Paulo, 22:30 UTC.
    expect(changed.data.find((t) => t.identifier === ticket!.identifier)).toMatchObject({
      time: '22:00',
      doors_time: '21:30',
      entry_opens_at: `${day}T22:30:00.000Z`,
    })
    expect((await redeem(ticket!.identifier, `${day}T22:29:00.000Z`)).json()).toMatchObject({ reason: 'invalid_time' })
    expect((await redeem(ticket!.identifier, `${day}T22:30:00.000Z`)).json()).toMatchObject({ status: 'ok' })
  })

  it('names the venue of each list’s event to the device', async () => {
    const lists = (await gate.get('/lists')).json().data as { id: string; event: { venue: unknown } }[]
    expect(lists.find((list) => list.id === listId)!.event.venue).toEqual(VENUE)
  })

  it('answers a nonce recorded before tickets had their show times again with them, as the ticket has them now', async () => {
    const [ticket] = await ticketsOfPastShow(1, { time: '20:00', doors_time: '19:00' })
    const first = await redeem(ticket!.identifier, `${day}T21:00:00.000Z`, { nonce: 'before-upgrade' })
    expect(first.json()).toMatchObject({ status: 'ok' })
    // The answer as a release before show times recorded it.
    await ctx.app.db
      .update(checkins)
      .set({
        answer: sql`${checkins.answer} #- '{ticket,time}' #- '{ticket,doors_time}' #- '{ticket,venue}' #- '{ticket,entry_opens_at}' #- '{ticket,entry_closes_at}'`,
      })
      .where(and(eq(checkins.nonce, 'before-upgrade'), eq(checkins.identifier, ticket!.identifier)))
    const again = await redeem(ticket!.identifier, `${day}T21:00:00.000Z`, { nonce: 'before-upgrade' })
    expect(again.statusCode, again.body).toBe(200)
    expect(again.json()).toMatchObject({
      status: 'ok',
      checkin: first.json().checkin,
      ticket: { identifier: ticket!.identifier, time: '20:00', doors_time: '19:00', venue: VENUE, entry_opens_at: `${day}T20:00:00.000Z`, checked_in: true },
    })
  })
})
