import { randomUUID } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import type { EventRow } from '../../src/domain/catalog/events.repo.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory, dayFromToday } from '../factories/catalog.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { buyTickets, checkinAdmin, MANY_PAIRINGS, pairedDevice, scanner, useSellersInUtc } from '../support/checkin.js'
import { expectError } from '../support/customer-auth.js'
import { createStaff } from '../support/staff.js'

/** docs/door.md: check-in lists of an event, how many are in, and the history of scans. */
const ctx = useTestApp({ env: MANY_PAIRINGS })
const [a, b] = useSellersInUtc(ctx)
let adm: AdmClient
let writer: AdmClient
let reader: AdmClient
let outsider: AdmClient
let gate: ReturnType<typeof scanner>

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000'
const FULL = { name: 'Inteira', description: 'Full price', type: 'full' }
const HALF = { name: 'Meia', description: 'Students and over-60s', type: 'half', price: 2500 }

type CheckinList = {
  id: string
  event_id: string
  name: string
  inventory_ids: string[] | null
  variants: string[] | null
  allow_multiple_entries: boolean
  allow_entry_after_exit: boolean
  created_at: string
  updated_at: string
}
type Checkin = { id: string; list_id: string; identifier: string; type: string; successful: boolean; reason: string | null; created_at: string }

beforeAll(async () => {
  adm = await checkinAdmin(ctx.app)
  writer = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.checkin.read', 'adm.checkin.write'] })).auth)
  reader = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.checkin.read'] })).auth)
  outsider = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.catalog.read', 'adm.catalog.write', 'adm.orders.read'] })).auth)
  gate = scanner(ctx.app, (await pairedDevice(ctx.app, adm, a.seller.id)).headers)
})

async function createList(eventId: string, body: object = { name: 'Main gate' }): Promise<CheckinList> {
  const res = await writer.post(`/events/${eventId}/checkin-lists`, body)
  expect(res.statusCode, res.body).toBe(201)
  return res.json()
}

/** An event of seller a with a plain inventory and one with variants, both dated today. */
async function eventWithInventories() {
  const event = await createTestEvent(ctx.app, a.seller.id)
  const general = await createTestInventory(ctx.app, event, { date: dayFromToday(0), name: 'General', capacity: 100 })
  const pista = await createTestInventory(ctx.app, event, { date: dayFromToday(0), name: 'Pista', capacity: 100, variants: [FULL, HALF] })
  return { event, general, pista }
}

const redeem = async (code: string, listId: string, type: 'entry' | 'exit' = 'entry') => {
  const res = await gate.post('/redeem', { code, list_ids: [listId], type })
  expect(res.statusCode, res.body).toBe(200)
  return res.json() as { status: string; reason: string | null }
}

describe('POST /adm/v1/events/{id}/checkin-lists', () => {
  let event: EventRow
  let inventoryId: string
  beforeAll(async () => {
    event = await createTestEvent(ctx.app, a.seller.id)
    inventoryId = (await createTestInventory(ctx.app, event)).id
  })

  it('creates a list of every inventory and variant, one entry per ticket, entry again after an exit', async () => {
    const res = await writer.post(`/events/${event.id}/checkin-lists`, { name: 'Main gate' })
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json()).toEqual({
      id: expect.any(String),
      event_id: event.id,
      name: 'Main gate',
      inventory_ids: null,
      variants: null,
      allow_multiple_entries: false,
      allow_entry_after_exit: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    })
  })

  it('keeps the settings it is given', async () => {
    const list = await createList(event.id, {
      name: 'VIP',
      inventory_ids: [inventoryId],
      variants: ['Meia'],
      allow_multiple_entries: true,
      allow_entry_after_exit: false,
    })
    expect(list).toMatchObject({ name: 'VIP', inventory_ids: [inventoryId], variants: ['Meia'], allow_multiple_entries: true, allow_entry_after_exit: false })
  })

  it('refuses an inventory of another event, or of another seller, with 400 naming the entry', async () => {
    const otherEvent = await createTestEvent(ctx.app, a.seller.id)
    const otherInventory = (await createTestInventory(ctx.app, otherEvent)).id
    const ofB = (await createTestInventory(ctx.app, await createTestEvent(ctx.app, b.seller.id))).id
    const before = (await reader.get(`/events/${event.id}/checkin-lists?limit=100`)).json().meta.total

    const foreign = await writer.post(`/events/${event.id}/checkin-lists`, { name: 'Bad', inventory_ids: [otherInventory] })
    expectError(foreign, 400, 'validation_error')
    expect(foreign.json().details).toEqual([expect.objectContaining({ path: 'inventory_ids.0' })])
    const mixed = await writer.post(`/events/${event.id}/checkin-lists`, { name: 'Bad', inventory_ids: [inventoryId, ofB, randomUUID()] })
    expectError(mixed, 400, 'validation_error')
    expect(mixed.json().details.map((d: { path: string }) => d.path)).toEqual(['inventory_ids.1', 'inventory_ids.2'])

    expect((await reader.get(`/events/${event.id}/checkin-lists?limit=100`)).json().meta.total).toBe(before)
  })

  it('answers 404 for an unknown event and 400 for a malformed id or body', async () => {
    expectError(await writer.post(`/events/${UNKNOWN_ID}/checkin-lists`, { name: 'Gate' }), 404, 'not_found')
    expectError(await writer.post('/events/not-a-uuid/checkin-lists', { name: 'Gate' }), 400, 'validation_error')
    expectError(await writer.post(`/events/${event.id}/checkin-lists`, {}), 400, 'validation_error')
    expectError(await writer.post(`/events/${event.id}/checkin-lists`, { name: 'Gate', unknown: 1 }), 400, 'validation_error')
    expectError(await writer.post(`/events/${event.id}/checkin-lists`, { name: 'Gate', inventory_ids: ['nope'] }), 400, 'validation_error')
  })

  it('needs adm.checkin.write: 401 without a token, 403 for a reader or staff without check-in permissions', async () => {
    expectError(await admClient(ctx.app, {}).post(`/events/${event.id}/checkin-lists`, { name: 'Gate' }), 401, 'unauthorized')
    expectError(await reader.post(`/events/${event.id}/checkin-lists`, { name: 'Gate' }), 403, 'forbidden')
    expectError(await outsider.post(`/events/${event.id}/checkin-lists`, { name: 'Gate' }), 403, 'forbidden')
  })
})

describe('reading, replacing and deleting lists', () => {
  let event: EventRow
  let inventoryId: string
  let first: CheckinList
  let second: CheckinList
  beforeAll(async () => {
    event = await createTestEvent(ctx.app, a.seller.id)
    inventoryId = (await createTestInventory(ctx.app, event)).id
    first = await createList(event.id, { name: 'North gate' })
    second = await createList(event.id, { name: 'South gate', inventory_ids: [inventoryId] })
    // A list of another event stays out of this event's page.
    await createList((await createTestEvent(ctx.app, a.seller.id)).id, { name: 'Elsewhere' })
  })

  it('lists an event’s lists, paginated, and reads one', async () => {
    const res = await reader.get(`/events/${event.id}/checkin-lists`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ data: [first, second], meta: { count: 2, limit: 20, page: 1, total: 2 } })
    expect((await reader.get(`/events/${event.id}/checkin-lists?limit=1&page=2`)).json()).toEqual({
      data: [second],
      meta: { count: 1, limit: 1, page: 2, total: 2 },
    })
    const one = await reader.get(`/checkin-lists/${first.id}`)
    expect(one.statusCode).toBe(200)
    expect(one.json()).toEqual(first)
    expectError(await reader.get(`/events/${UNKNOWN_ID}/checkin-lists`), 404, 'not_found')
    expectError(await reader.get(`/checkin-lists/${UNKNOWN_ID}`), 404, 'not_found')
    expectError(await reader.get('/checkin-lists/not-a-uuid'), 400, 'validation_error')
  })

  it('replaces the settings with PUT: those left out go back to their defaults', async () => {
    const list = await createList(event.id, {
      name: 'Side door',
      inventory_ids: [inventoryId],
      variants: ['Meia'],
      allow_multiple_entries: true,
      allow_entry_after_exit: false,
    })
    const res = await writer.put(`/checkin-lists/${list.id}`, { name: 'Side door (renamed)' })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({
      ...list,
      name: 'Side door (renamed)',
      inventory_ids: null,
      variants: null,
      allow_multiple_entries: false,
      allow_entry_after_exit: true,
      updated_at: expect.any(String),
    })
    expect(Date.parse(res.json().updated_at)).toBeGreaterThanOrEqual(Date.parse(list.updated_at))
    expect((await reader.get(`/checkin-lists/${list.id}`)).json()).toEqual(res.json())

    const foreign = (await createTestInventory(ctx.app, await createTestEvent(ctx.app, a.seller.id))).id
    const bad = await writer.put(`/checkin-lists/${list.id}`, { name: 'X', inventory_ids: [foreign] })
    expectError(bad, 400, 'validation_error')
    expect(bad.json().details).toEqual([expect.objectContaining({ path: 'inventory_ids.0' })])
    expect((await reader.get(`/checkin-lists/${list.id}`)).json()).toEqual(res.json())
    expectError(await writer.put(`/checkin-lists/${UNKNOWN_ID}`, { name: 'X' }), 404, 'not_found')
  })

  it('deletes a list: 204, then 404 for it, its status and its history', async () => {
    const list = await createList(event.id, { name: 'Temporary' })
    const res = await writer.delete(`/checkin-lists/${list.id}`)
    expect(res.statusCode).toBe(204)
    expect(res.body).toBe('')
    expectError(await reader.get(`/checkin-lists/${list.id}`), 404, 'not_found')
    expectError(await reader.get(`/checkin-lists/${list.id}/status`), 404, 'not_found')
    expectError(await reader.get(`/checkin-lists/${list.id}/checkins`), 404, 'not_found')
    expectError(await writer.put(`/checkin-lists/${list.id}`, { name: 'Back' }), 404, 'not_found')
    expectError(await writer.delete(`/checkin-lists/${list.id}`), 404, 'not_found')
    const left = (await reader.get(`/events/${event.id}/checkin-lists?limit=100`)).json().data.map((l: CheckinList) => l.id)
    expect(left).toEqual(expect.arrayContaining([first.id, second.id]))
    expect(left).not.toContain(list.id)
  })

  it('needs adm.checkin.read to read and adm.checkin.write to change: 401 without a token, 403 without the permission', async () => {
    const anonymous = admClient(ctx.app, {})
    for (const url of [
      `/events/${event.id}/checkin-lists`,
      `/checkin-lists/${first.id}`,
      `/checkin-lists/${first.id}/status`,
      `/checkin-lists/${first.id}/checkins`,
    ]) {
      expectError(await anonymous.get(url), 401, 'unauthorized')
      expectError(await outsider.get(url), 403, 'forbidden')
      expect((await reader.get(url)).statusCode).toBe(200)
    }
    expectError(await anonymous.put(`/checkin-lists/${first.id}`, { name: 'X' }), 401, 'unauthorized')
    expectError(await anonymous.delete(`/checkin-lists/${first.id}`), 401, 'unauthorized')
    expectError(await reader.put(`/checkin-lists/${first.id}`, { name: 'X' }), 403, 'forbidden')
    expectError(await reader.delete(`/checkin-lists/${first.id}`), 403, 'forbidden')
    expectError(await outsider.put(`/checkin-lists/${first.id}`, { name: 'X' }), 403, 'forbidden')
    expectError(await outsider.delete(`/checkin-lists/${first.id}`), 403, 'forbidden')
    expect((await reader.get(`/checkin-lists/${first.id}`)).json()).toEqual(first)
  })
})

describe('GET /adm/v1/checkin-lists/{id}/status', () => {
  it('counts valid tickets, checked in and inside, in all and per inventory and variant', async () => {
    const { event, general, pista } = await eventWithInventories()
    const list = await createList(event.id, { name: 'All' })
    const halfOnly = await createList(event.id, { name: 'Half price door', inventory_ids: [pista.id], variants: ['Meia'] })

    const empty = await reader.get(`/checkin-lists/${list.id}/status`)
    expect(empty.statusCode).toBe(200)
    expect(empty.json()).toEqual({ list_id: list.id, tickets: 0, checked_in: 0, inside: 0, inventories: [] })

    const plain = await buyTickets(ctx.app, a, [{ inventory_id: general.id, quantity: 4 }])
    // The third stays valid and unscanned.
    const [g1, g2, _g3, g4] = plain.tickets.map((t) => t.identifier) as [string, string, string, string]
    // The second half-price ticket stays valid and unscanned.
    const half = await buyTickets(ctx.app, a, [{ inventory_id: pista.id, variant: 'Meia', quantity: 2 }])
    const m1 = half.tickets[0]!.identifier
    const full = await buyTickets(ctx.app, a, [{ inventory_id: pista.id, variant: 'Inteira', quantity: 1 }])
    const i1 = full.tickets[0]!.identifier
    expect([...half.tickets, ...full.tickets].map((t) => t.variant)).toEqual(['Meia', 'Meia', 'Inteira'])

    expect(await redeem(g1, list.id)).toMatchObject({ status: 'ok' })
    expect(await redeem(g2, list.id)).toMatchObject({ status: 'ok' })
    expect(await redeem(g2, list.id, 'exit')).toMatchObject({ status: 'ok' })
    expect(await redeem(m1, list.id)).toMatchObject({ status: 'ok' })
    expect(await redeem(i1, list.id)).toMatchObject({ status: 'ok' })
    // A refused scan counts for nothing.
    expect(await redeem(m1, list.id)).toMatchObject({ status: 'refused', reason: 'already_redeemed' })

    // Voided tickets leave the counts: one never scanned, one inside.
    expect((await adm.post(`/orders/${plain.id}/tickets/${g4}/void`)).statusCode).toBe(200)
    expect((await adm.post(`/orders/${plain.id}/tickets/${g1}/void`)).statusCode).toBe(200)
    // So do the tickets of a cancelled order, one of them inside.
    const cancelled = await buyTickets(ctx.app, a, [{ inventory_id: general.id, quantity: 2 }])
    expect(await redeem(cancelled.tickets[0]!.identifier, list.id)).toMatchObject({ status: 'ok' })
    expect((await adm.post(`/orders/${cancelled.id}/cancel`)).statusCode).toBe(200)

    const res = await reader.get(`/checkin-lists/${list.id}/status`)
    expect(res.statusCode).toBe(200)
    const status = res.json()
    expect({ ...status, inventories: undefined }).toEqual({ list_id: list.id, tickets: 5, checked_in: 3, inside: 2, inventories: undefined })
    const byName = [...status.inventories].sort((x: { name: string }, y: { name: string }) => x.name.localeCompare(y.name))
    expect(byName).toEqual([
      { inventory_id: general.id, name: 'General', date: dayFromToday(0), tickets: 2, checked_in: 1, variants: [] },
      {
        inventory_id: pista.id,
        name: 'Pista',
        date: dayFromToday(0),
        tickets: 3,
        checked_in: 2,
        variants: expect.arrayContaining([
          { name: 'Inteira', tickets: 1, checked_in: 1 },
          { name: 'Meia', tickets: 2, checked_in: 1 },
        ]),
      },
    ])
    expect(byName[1].variants).toHaveLength(2)

    // A list of half-price tickets only counts those, and scans on other lists do not count on it.
    expect((await reader.get(`/checkin-lists/${halfOnly.id}/status`)).json()).toEqual({
      list_id: halfOnly.id,
      tickets: 2,
      checked_in: 0,
      inside: 0,
      inventories: [
        { inventory_id: pista.id, name: 'Pista', date: dayFromToday(0), tickets: 2, checked_in: 0, variants: [{ name: 'Meia', tickets: 2, checked_in: 0 }] },
      ],
    })
    expectError(await reader.get(`/checkin-lists/${UNKNOWN_ID}/status`), 404, 'not_found')
  })
})

describe('GET /adm/v1/checkin-lists/{id}/checkins', () => {
  it('lists every scan of the list newest first, refused ones too, filtered by identifier and success, paginated', async () => {
    const { event, general } = await eventWithInventories()
    const list = await createList(event.id, { name: 'History' })
    const order = await buyTickets(ctx.app, a, [{ inventory_id: general.id, quantity: 3 }])
    const [t1, t2, t3] = order.tickets.map((t) => t.identifier) as [string, string, string]
    expect((await adm.post(`/orders/${order.id}/tickets/${t3}/void`)).statusCode).toBe(200)
    const unknown = `NOPE${randomUUID().slice(0, 8).toUpperCase()}`

    const scans: [string, 'entry' | 'exit', boolean, string | null][] = [
      [t1, 'entry', true, null],
      [t1, 'entry', false, 'already_redeemed'],
      [t2, 'entry', true, null],
      [t1, 'exit', true, null],
      [unknown, 'entry', false, 'invalid'],
      [t3, 'entry', false, 'voided'],
    ]
    // t2 is scanned by its signed code (the QR): the history names its identifier all the same.
    const presented = (identifier: string) => (identifier === t2 ? order.tickets[1]!.code : identifier)
    for (const [identifier, type, successful] of scans) {
      expect((await redeem(presented(identifier), list.id, type)).status).toBe(successful ? 'ok' : 'refused')
    }

    const res = await reader.get(`/checkin-lists/${list.id}/checkins`)
    expect(res.statusCode).toBe(200)
    const body = res.json() as { data: Checkin[]; meta: object }
    expect(body.meta).toEqual({ count: 6, limit: 20, page: 1, total: 6 })
    expect(body.data.map((c) => [c.identifier, c.type, c.successful, c.reason])).toEqual([...scans].reverse())
    expect(body.data.every((c) => c.list_id === list.id)).toBe(true)
    expect(body.data[0]).toMatchObject({ forced: false, nonce: null, annulled_at: null, device_id: expect.any(String), scanned_at: expect.any(String) })
    const times = body.data.map((c) => Date.parse(c.created_at))
    expect(times).toEqual([...times].sort((x, y) => y - x))

    const ofT1 = (await reader.get(`/checkin-lists/${list.id}/checkins?identifier=${t1}`)).json()
    expect(ofT1.data.map((c: Checkin) => [c.type, c.successful])).toEqual([
      ['exit', true],
      ['entry', false],
      ['entry', true],
    ])
    expect(ofT1.meta).toEqual({ count: 3, limit: 20, page: 1, total: 3 })
    expect((await reader.get(`/checkin-lists/${list.id}/checkins?identifier=${t2}`)).json().data).toEqual([body.data[3]])
    const ofUnknown = (await reader.get(`/checkin-lists/${list.id}/checkins?identifier=${unknown}`)).json()
    expect(ofUnknown.data.map((c: Checkin) => c.reason)).toEqual(['invalid'])

    const refused = (await reader.get(`/checkin-lists/${list.id}/checkins?successful=false`)).json()
    expect(refused.data.map((c: Checkin) => c.reason)).toEqual(['voided', 'invalid', 'already_redeemed'])
    expect(refused.meta.total).toBe(3)
    const passed = (await reader.get(`/checkin-lists/${list.id}/checkins?successful=true&identifier=${t1}`)).json()
    expect(passed.data.map((c: Checkin) => c.type)).toEqual(['exit', 'entry'])

    const pages = []
    for (const page of [1, 2, 3]) {
      const r = (await reader.get(`/checkin-lists/${list.id}/checkins?limit=4&page=${page}`)).json()
      pages.push(r)
    }
    expect(pages.map((p) => p.meta)).toEqual([
      { count: 4, limit: 4, page: 1, total: 6 },
      { count: 2, limit: 4, page: 2, total: 6 },
      { count: 0, limit: 4, page: 3, total: 6 },
    ])
    expect(pages.flatMap((p) => p.data)).toEqual(body.data)

    expectError(await reader.get(`/checkin-lists/${list.id}/checkins?successful=maybe`), 400, 'validation_error')
    expectError(await reader.get(`/checkin-lists/${list.id}/checkins?limit=101`), 400, 'validation_error')
    expectError(await reader.get(`/checkin-lists/${UNKNOWN_ID}/checkins`), 404, 'not_found')
  })
})

describe('two lists of one event', () => {
  it('are independent: a ticket enters once on each', async () => {
    const { event, general } = await eventWithInventories()
    const north = await createList(event.id, { name: 'North' })
    const south = await createList(event.id, { name: 'South' })
    const [ticket] = (await buyTickets(ctx.app, a, [{ inventory_id: general.id, quantity: 1 }])).tickets.map((t) => t.identifier) as [string]

    expect(await redeem(ticket, north.id)).toMatchObject({ status: 'ok', reason: null, list_id: north.id })
    expect(await redeem(ticket, south.id)).toMatchObject({ status: 'ok', reason: null, list_id: south.id })
    expect(await redeem(ticket, north.id)).toMatchObject({ status: 'refused', reason: 'already_redeemed' })
    expect(await redeem(ticket, south.id)).toMatchObject({ status: 'refused', reason: 'already_redeemed' })

    for (const list of [north, south]) {
      expect((await reader.get(`/checkin-lists/${list.id}/status`)).json()).toMatchObject({ tickets: 1, checked_in: 1, inside: 1 })
      const history = (await reader.get(`/checkin-lists/${list.id}/checkins`)).json()
      expect(history.data.map((c: Checkin) => [c.list_id, c.successful])).toEqual([
        [list.id, false],
        [list.id, true],
      ])
    }
  })
})
