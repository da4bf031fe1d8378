import { randomUUID } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { checkins } from '../../src/domain/checkin/checkin.table.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory, dayFromToday } from '../factories/catalog.js'
import type { AdmClient } from '../support/adm-client.js'
import { buyTickets, checkinAdmin, type FeedTicket, feedPage, pairedDevice, scanner, useSellersInUtc } from '../support/checkin.js'
import { expectError } from '../support/customer-auth.js'

/** docs/door.md: a gate lets each ticket in once per list, says why not, and keeps every scan. */
const ctx = useTestApp()
const [a, b] = useSellersInUtc(ctx)
let adm: AdmClient
let gate: ReturnType<typeof scanner>
let otherGate: ReturnType<typeof scanner>
let eventId: string
let inventoryId: string
let vipId: string
let listId: string

const VARIANTS = [
  { name: 'Inteira', description: 'Full price', type: 'full' },
  { name: 'Meia', description: 'Half price', type: 'half', price: 2500 },
]

beforeAll(async () => {
  adm = await checkinAdmin(ctx.app)
  const event = await createTestEvent(ctx.app, a.seller.id)
  eventId = event.id
  inventoryId = (await createTestInventory(ctx.app, event, { date: dayFromToday(0), capacity: 500, variants: VARIANTS })).id
  vipId = (await createTestInventory(ctx.app, event, { date: dayFromToday(0), capacity: 50, name: 'VIP' })).id
  const list = await adm.post(`/events/${eventId}/checkin-lists`, { name: 'Main gate' })
  expect(list.statusCode).toBe(201)
  listId = list.json().id
  gate = scanner(ctx.app, (await pairedDevice(ctx.app, adm, a.seller.id)).headers)
  otherGate = scanner(ctx.app, (await pairedDevice(ctx.app, adm, a.seller.id, { name: 'Gate 2' })).headers)
})

const buyOne = async (item: { inventory_id?: string; variant?: string } = {}) =>
  (await buyTickets(ctx.app, a, [{ inventory_id: inventoryId, quantity: 1, variant: 'Inteira', ...item }])).tickets[0]!
const redeem = (code: string, extra: Record<string, unknown> = {}, on = gate) => on.post('/redeem', { code, list_ids: [listId], ...extra })
const newList = async (body: Record<string, unknown>, event = eventId) => (await adm.post(`/events/${event}/checkin-lists`, body)).json().id as string

describe('POST /chk/v1/redeem', () => {
  it('lets a ticket in once, by identifier or by signed code, and refuses the second entry', async () => {
    const order = await buyTickets(ctx.app, a, [{ inventory_id: inventoryId, quantity: 2, variant: 'Inteira' }])
    const [first, second] = order.tickets
    const ok = await redeem(first!.identifier)
    expect(ok.statusCode).toBe(200)
    expect(ok.json()).toMatchObject({
      status: 'ok',
      reason: null,
      list_id: listId,
      ticket: {
        identifier: first!.identifier,
        order_id: order.id,
        event_id: eventId,
        inventory_id: inventoryId,
        variant: 'Inteira',
        status: 'valid',
        checked_in: true,
      },
      checkin: { list_id: listId, identifier: first!.identifier, type: 'entry', successful: true, forced: false, reason: null },
    })
    expect(ok.json().ticket.holder.name).toMatch(/^Buyer /)
    expect((await redeem(first!.code)).json()).toMatchObject({ status: 'refused', reason: 'already_redeemed', ticket: { checked_in: true } })
    expect((await redeem(second!.code)).json()).toMatchObject({ status: 'ok', ticket: { identifier: second!.identifier } })
  })

  it('gives exactly one ok to 20 simultaneous scans of one ticket from two gates, and keeps all 20', async () => {
    const ticket = await buyOne()
    const answers = await Promise.all(Array.from({ length: 20 }, (_, n) => redeem(ticket.identifier, {}, n % 2 ? gate : otherGate)))
    expect(answers.filter((r) => r.json().status === 'ok')).toHaveLength(1)
    expect(answers.filter((r) => r.json().reason === 'already_redeemed')).toHaveLength(19)
    const kept = await ctx.app.db.select().from(checkins).where(eq(checkins.identifier, ticket.identifier))
    expect(kept).toHaveLength(20)
  })

  it('answers invalid for an unknown code, a tampered signed code, and another seller’s ticket, all alike', async () => {
    const ticket = await buyOne()
    const [part0, part1, part2] = ticket.code.split('.') as [string, string, string]
    // Another identifier in the payload (the compact layout's bytes 1..16), signature kept.
    const payload = Buffer.from(part1, 'base64url')
    payload[1]! ^= 1
    const tamperedPayload = payload.toString('base64url')
    const event = await createTestEvent(ctx.app, b.seller.id)
    const theirs = (await buyTickets(ctx.app, b, [{ inventory_id: (await createTestInventory(ctx.app, event, { date: dayFromToday(0) })).id, quantity: 1 }]))
      .tickets[0]!
    const shapes = []
    for (const code of [
      'NOSUCHTICKET',
      `${part0}.${tamperedPayload}.${part2}`,
      `${part0}.${part1}.${part2.slice(0, -4)}AAAA`,
      theirs.identifier,
      theirs.code,
    ]) {
      const res = await redeem(code)
      expect(res.statusCode).toBe(200)
      const body = res.json()
      expect(body).toMatchObject({ status: 'refused', reason: 'invalid', ticket: null, list_id: listId, checkin: { successful: false, reason: 'invalid' } })
      shapes.push(Object.keys(body.checkin).sort())
    }
    expect(new Set(shapes.map((s) => s.join()))).toHaveProperty('size', 1)
  })

  it('keeps an unknown code cut at a whole character, an emoji across the cut included', async () => {
    const code = `${'A'.repeat(127)}😀 and more`
    const res = await redeem(code, { nonce: 'emoji-cut' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ status: 'refused', reason: 'invalid', checkin: { identifier: 'A'.repeat(127) } })
  })

  it('refuses a voided ticket, one outside its window of entry, and one whose product is on none of the lists', async () => {
    const voided = await buyTickets(ctx.app, a, [{ inventory_id: inventoryId, quantity: 1, variant: 'Inteira' }])
    expect((await adm.post(`/orders/${voided.id}/cancel`)).statusCode).toBe(200)
    expect((await redeem(voided.tickets[0]!.identifier)).json()).toMatchObject({ status: 'refused', reason: 'voided', ticket: { status: 'voided' } })

    const later = await createTestInventory(ctx.app, { id: eventId, sellerId: a.seller.id }, { date: dayFromToday(3), name: 'Later' })
    const early = await buyOne({ inventory_id: later.id, variant: undefined })
    expect((await redeem(early.identifier)).json()).toMatchObject({ status: 'refused', reason: 'invalid_time' })
    // An exit is always allowed for a valid ticket.
    expect((await redeem(early.identifier, { type: 'exit' })).json()).toMatchObject({ status: 'ok', checkin: { type: 'exit' } })

    const vipOnly = await newList({ name: 'VIP lounge', inventory_ids: [vipId] })
    const general = await buyOne()
    expect((await gate.post('/redeem', { code: general.identifier, list_ids: [vipOnly] })).json()).toMatchObject({ status: 'refused', reason: 'product' })
    const halfOnly = await newList({ name: 'Students', variants: ['Meia'] })
    expect((await gate.post('/redeem', { code: general.identifier, list_ids: [halfOnly] })).json()).toMatchObject({ status: 'refused', reason: 'product' })
    const half = await buyOne({ variant: 'Meia' })
    expect((await gate.post('/redeem', { code: half.identifier, list_ids: [halfOnly] })).json()).toMatchObject({ status: 'ok', list_id: halfOnly })
  })

  it('answers ambiguous when the ticket is on several of the lists named, and picks the one list that covers it', async () => {
    const vipOnly = await newList({ name: 'VIP door', inventory_ids: [vipId] })
    const ticket = await buyOne()
    expect((await gate.post('/redeem', { code: ticket.identifier, list_ids: [listId, vipOnly] })).json()).toMatchObject({ status: 'ok', list_id: listId })
    const another = await newList({ name: 'Side door' })
    const next = await buyOne()
    expect((await gate.post('/redeem', { code: next.identifier, list_ids: [listId, another] })).json()).toMatchObject({
      status: 'refused',
      reason: 'ambiguous',
    })
  })

  it('lets a ticket in again after an exit, or always with allow_multiple_entries, and not otherwise', async () => {
    const ticket = await buyOne()
    expect((await redeem(ticket.identifier)).json().status).toBe('ok')
    expect((await redeem(ticket.identifier, { type: 'exit' })).json().status).toBe('ok')
    expect((await redeem(ticket.identifier)).json().status).toBe('ok')
    const strict = await newList({ name: 'No return', allow_entry_after_exit: false })
    const on = (extra: Record<string, unknown>) => gate.post('/redeem', { code: ticket.identifier, list_ids: [strict], ...extra })
    expect((await on({})).json().status).toBe('ok')
    expect((await on({ type: 'exit' })).json().status).toBe('ok')
    expect((await on({})).json()).toMatchObject({ status: 'refused', reason: 'already_redeemed' })
    const open = await newList({ name: 'Open', allow_multiple_entries: true })
    for (let n = 0; n < 3; n++) expect((await gate.post('/redeem', { code: ticket.identifier, list_ids: [open] })).json().status).toBe('ok')
  })

  it('answers the first answer again for the same device and nonce, recording nothing new; another device’s nonce is its own', async () => {
    const ticket = await buyOne()
    const first = (await redeem(ticket.identifier, { nonce: 'n-1' })).json()
    expect(first.status).toBe('ok')
    const again = await Promise.all(Array.from({ length: 5 }, () => redeem(ticket.identifier, { nonce: 'n-1' })))
    for (const res of again) expect(res.json()).toEqual(first)
    expect(await ctx.app.db.select().from(checkins).where(eq(checkins.identifier, ticket.identifier))).toHaveLength(1)
    expect((await redeem(ticket.identifier, { nonce: 'n-1' }, otherGate)).json()).toMatchObject({ status: 'refused', reason: 'already_redeemed' })
    // A nonce for a code that names no ticket replays too, even when sent at once.
    const unknown = await Promise.all(Array.from({ length: 5 }, () => redeem('NOSUCHTICKET', { nonce: 'n-2' })))
    expect(new Set(unknown.map((r) => r.json().checkin.id)).size).toBe(1)
  })

  it('refuses force on an online scan with 400, recording nothing: only batch uploads are forced', async () => {
    const ticket = await buyOne()
    expectError(await redeem(ticket.identifier, { force: true }), 400, 'validation_error')
    expect(await ctx.app.db.select().from(checkins).where(eq(checkins.identifier, ticket.identifier))).toHaveLength(0)
    expect((await redeem(ticket.identifier, { force: false })).json()).toMatchObject({ status: 'ok' })
  })

  it('counts a scan whose scanned_at lies in the future when the server received it, with no error', async () => {
    const ticket = await buyOne()
    const before = Date.now()
    const res = await redeem(ticket.identifier, { scanned_at: new Date(Date.now() + 6 * 60_000).toISOString() })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ status: 'ok', reason: null })
    const scannedAt = Date.parse(res.json().checkin.scanned_at)
    expect(scannedAt).toBeGreaterThanOrEqual(before)
    expect(scannedAt).toBeLessThanOrEqual(Date.now())
  })

  it('keeps 400 for a code with control characters and 404 for a list the device cannot see, recording nothing', async () => {
    const ticket = await buyOne()
    const bad = await redeem(`${ticket.identifier}\u0007`)
    expectError(bad, 400, 'validation_error')
    expect(bad.json().details).toEqual([{ path: 'code', message: 'must not contain control characters' }])
    const gone = await newList({ name: 'Deleted gate' })
    expect((await adm.delete(`/checkin-lists/${gone}`)).statusCode).toBe(204)
    const missing = await gate.post('/redeem', { code: ticket.identifier, list_ids: [listId, gone] })
    expectError(missing, 404, 'not_found')
    expect(missing.json().details).toEqual([{ path: 'list_ids.1', message: 'is not a list of this device' }])
    expect(await ctx.app.db.select().from(checkins).where(eq(checkins.identifier, ticket.identifier))).toHaveLength(0)
  })
})

describe('POST /chk/v1/redeem/batch', () => {
  it('judges up to 1,000 scans in order, each with its answer', async () => {
    const order = await buyTickets(ctx.app, a, [{ inventory_id: inventoryId, quantity: 3, variant: 'Inteira' }])
    const [t1, t2] = order.tickets
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString()
    const scans = [
      { code: t1!.identifier, list_ids: [listId], scanned_at: at(3), force: true, nonce: 'b-1' },
      { code: t1!.identifier, list_ids: [listId], scanned_at: at(2), force: true, nonce: 'b-2' },
      { code: t2!.code, list_ids: [listId], scanned_at: at(1), force: true, nonce: 'b-3' },
      { code: 'NOSUCHTICKET', list_ids: [listId], force: true, nonce: 'b-4' },
    ]
    const res = await gate.post('/redeem/batch', { scans })
    expect(res.statusCode).toBe(200)
    expect(res.json().results.map((r: { status: string; reason: string | null }) => [r.status, r.reason])).toEqual([
      ['ok', null],
      ['ok', 'already_redeemed'],
      ['ok', null],
      ['refused', 'invalid'],
    ])
    // Retried whole (the upload was cut short): the same answers, nothing recorded twice.
    const retry = await gate.post('/redeem/batch', { scans })
    expect(retry.json()).toEqual(res.json())
    expect(await ctx.app.db.select().from(checkins).where(eq(checkins.identifier, t1!.identifier))).toHaveLength(2)
  })

  it('refuses only a malformed body whole: not {scans: [...]}, none, or more than 1,000 scans', async () => {
    const ticket = await buyOne()
    const scan = { code: ticket.identifier, list_ids: [listId], nonce: 'too-many' }
    expectError(await gate.post('/redeem/batch', { scans: Array.from({ length: 1001 }, () => scan) }), 400, 'validation_error')
    expectError(await gate.post('/redeem/batch', { scans: [] }), 400, 'validation_error')
    expectError(await gate.post('/redeem/batch', { scans: scan }), 400, 'validation_error')
    expectError(await gate.post('/redeem/batch', [scan]), 400, 'validation_error')
    expectError(await gate.post('/redeem/batch', { scans: [scan], extra: true }), 400, 'validation_error')
    expect(await ctx.app.db.select().from(checkins).where(eq(checkins.identifier, ticket.identifier))).toHaveLength(0)
  })

  it('answers each scan that is not valid on its own invalid_scan in its place, records none of them, and judges the others', async () => {
    const [first, last, later] = (await buyTickets(ctx.app, a, [{ inventory_id: inventoryId, quantity: 3, variant: 'Inteira' }])).tickets
    const gone = await newList({ name: 'Deleted since' })
    expect((await adm.delete(`/checkin-lists/${gone}`)).statusCode).toBe(204)
    const otherEvent = await createTestEvent(ctx.app, a.seller.id)
    const otherEventList = await newList({ name: 'Other event' }, otherEvent.id)
    const eventOfB = await createTestEvent(ctx.app, b.seller.id)
    const listOfB = await newList({ name: 'Gate of b' }, eventOfB.id)
    const limitedGate = scanner(ctx.app, (await pairedDevice(ctx.app, adm, a.seller.id, { name: 'Limited', event_ids: [eventId] })).headers)
    const valid = (code: string, nonce: string) => ({ code, list_ids: [listId], force: true, nonce })
    const invalid: [string, unknown, string][] = [
      ['no nonce', { code: first!.identifier, list_ids: [listId] }, 'scans.1.nonce'],
      ['code over 2,048 characters', valid('A'.repeat(2049), 'i-long'), 'scans.2.code'],
      ['code with a control character', valid(`${first!.identifier}\u0007`, 'i-bell'), 'scans.3.code'],
      ['code with a NUL', valid(`${first!.identifier}\u0000`, 'i-nul'), 'scans.4.code'],
      ['scanned_at not a date-time', { ...valid(first!.identifier, 'i-time'), scanned_at: 'yesterday' }, 'scans.5.scanned_at'],
      ['unknown list', { ...valid(first!.identifier, 'i-unknown'), list_ids: [listId, randomUUID()] }, 'scans.6.list_ids.1'],
      ['list deleted since', { ...valid(first!.identifier, 'i-deleted'), list_ids: [gone] }, 'scans.7.list_ids.0'],
      ['another seller’s list', { ...valid(first!.identifier, 'i-seller'), list_ids: [listOfB] }, 'scans.8.list_ids.0'],
      ['an event the device is not limited to', { ...valid(first!.identifier, 'i-event'), list_ids: [otherEventList] }, 'scans.9.list_ids.0'],
      ['not a scan at all', 42, 'scans.10'],
      ['an unknown field', { ...valid(first!.identifier, 'i-field'), gate: 'north' }, 'scans.11.gate'],
    ]
    const scans = [valid(first!.identifier, 'v-first'), ...invalid.map(([, scan]) => scan), valid(last!.identifier, 'v-last')]
    const res = await limitedGate.post('/redeem/batch', { scans })
    expect(res.statusCode).toBe(200)
    const results = res.json().results
    expect(results).toHaveLength(scans.length)
    expect(results[0]).toMatchObject({ status: 'ok', reason: null })
    expect(results.at(-1)).toMatchObject({ status: 'ok', reason: null })
    for (const [n, [kind, , path]] of invalid.entries()) {
      expect(results[n + 1], kind).toMatchObject({ status: 'refused', reason: 'invalid_scan', ticket: null, list_id: null, checkin: null })
      expect(
        results[n + 1].details.map((d: { path: string }) => d.path),
        kind,
      ).toContain(path)
    }
    expect(await recordedNonces('i-')).toBe(0)
    expect(await ctx.app.db.select().from(checkins).where(eq(checkins.identifier, first!.identifier))).toHaveLength(1)
    // An invalid scan used up nothing: its nonce serves the next scan.
    const reused = await limitedGate.post('/redeem/batch', { scans: [valid(later!.identifier, 'i-bell')] })
    expect(reused.json().results[0]).toMatchObject({ status: 'ok', reason: null })
  })

  it('records a scan whose scanned_at lies in the future as received, with the rest of its batch', async () => {
    const [ticket, other] = (await buyTickets(ctx.app, a, [{ inventory_id: inventoryId, quantity: 2, variant: 'Inteira' }])).tickets
    const before = Date.now()
    const res = await gate.post('/redeem/batch', {
      scans: [
        { code: ticket!.identifier, list_ids: [listId], force: true, nonce: 'fast-1', scanned_at: new Date(Date.now() + 6 * 60_000).toISOString() },
        { code: other!.identifier, list_ids: [listId], force: true, nonce: 'fast-2', scanned_at: new Date(Date.now() + 3_600_000).toISOString() },
      ],
    })
    expect(res.statusCode).toBe(200)
    for (const result of res.json().results) {
      expect(result).toMatchObject({ status: 'ok', reason: null, checkin: { forced: false } })
      expect(Date.parse(result.checkin.scanned_at)).toBeGreaterThanOrEqual(before)
      expect(Date.parse(result.checkin.scanned_at)).toBeLessThanOrEqual(Date.now())
    }
    expect(await recordedNonces('fast-')).toBe(2)
  })

  it('answers a replayed batch that names a deleted list the same again, recording nothing twice', async () => {
    const [kept, lost, both] = (await buyTickets(ctx.app, a, [{ inventory_id: vipId, quantity: 3 }])).tickets
    const mainOnly = await newList({ name: 'Main only', inventory_ids: [inventoryId] })
    const vipOnly = await newList({ name: 'VIP only', inventory_ids: [vipId] })
    const scans = [
      { code: kept!.identifier, list_ids: [vipOnly], force: true, nonce: 'replay-1' },
      { code: lost!.identifier, list_ids: [mainOnly], force: true, nonce: 'replay-2' },
      { code: both!.identifier, list_ids: [vipOnly, mainOnly], force: true, nonce: 'replay-3' },
    ]
    expect((await adm.delete(`/checkin-lists/${mainOnly}`)).statusCode).toBe(204)
    const first = await gate.post('/redeem/batch', { scans })
    expect(first.json().results.map((r: { status: string; reason: string | null }) => [r.status, r.reason])).toEqual([
      ['ok', null],
      ['refused', 'invalid_scan'],
      ['refused', 'invalid_scan'],
    ])
    const replay = await gate.post('/redeem/batch', { scans })
    expect(replay.json()).toEqual(first.json())
    expect(await recordedNonces('replay-')).toBe(1)
    expect(await ctx.app.db.select().from(checkins).where(eq(checkins.identifier, kept!.identifier))).toHaveLength(1)
  })

  it('records the valid half of 1,000 scans where every other one is invalid, and answers the other half invalid_scan', async () => {
    const event = await createTestEvent(ctx.app, a.seller.id)
    const sectors = await Promise.all(
      Array.from({ length: 25 }, (_, n) => createTestInventory(ctx.app, event, { name: `Sector ${n + 1}`, date: dayFromToday(0), capacity: 20 })),
    )
    const sold = (
      await buyTickets(
        ctx.app,
        a,
        sectors.map((sector) => ({ inventory_id: sector.id, quantity: 20 })),
      )
    ).tickets
    const eventList = await newList({ name: 'Stadium gate' }, event.id)
    const scans = sold.flatMap((ticket, n) => [
      { code: ticket.identifier, list_ids: [eventList], force: true, nonce: `half-${n}` },
      n % 2 === 0
        ? { code: ticket.identifier, list_ids: [eventList], force: true }
        : { code: `${ticket.identifier}\n`, list_ids: [eventList], force: true, nonce: `bad-${n}` },
    ])
    expect(scans).toHaveLength(1000)
    const res = await gate.post('/redeem/batch', { scans })
    expect(res.statusCode).toBe(200)
    const results: { status: string; reason: string | null }[] = res.json().results
    expect(results.filter((_, n) => n % 2 === 0).every((r) => r.status === 'ok' && r.reason === null)).toBe(true)
    expect(results.filter((_, n) => n % 2 === 1).every((r) => r.status === 'refused' && r.reason === 'invalid_scan')).toBe(true)
    expect(await recordedNonces('half-')).toBe(500)
    expect(await recordedNonces('bad-')).toBe(0)
    expect((await adm.get(`/checkin-lists/${eventList}/status`)).json()).toMatchObject({ tickets: 500, checked_in: 500, inside: 500 })
  })
})

describe('an upload cut short by the client', () => {
  it('records all of it or none of it, and its retry with the same nonces records every scan exactly once', async () => {
    const orders = [
      await buyTickets(ctx.app, a, [{ inventory_id: vipId, quantity: 20 }]),
      await buyTickets(ctx.app, a, [{ inventory_id: vipId, quantity: 20 }]),
    ]
    const scans = orders.flatMap((o) => o.tickets).map((t, n) => ({ code: t.identifier, list_ids: [listId], force: true, nonce: `cut-${n}` }))
    const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' })
    try {
      const aborted = new AbortController()
      const upload = fetch(`${address}/chk/v1/redeem/batch`, {
        method: 'POST',
        headers: { ...gate.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ scans }),
        signal: aborted.signal,
      }).catch((error: unknown) => error)
      aborted.abort()
      await upload
      // The batch is one transaction: whatever the server got to, it recorded all of it or none of it.
      expect([0, scans.length]).toContain(await recordedNonces('cut-'))
      const retry = await gate.post('/redeem/batch', { scans })
      expect(retry.statusCode).toBe(200)
      expect(retry.json().results.every((r: { status: string }) => r.status === 'ok')).toBe(true)
      expect(await recordedNonces('cut-')).toBe(scans.length)
      const perTicket = await ctx.app.db.execute(sql`select count(*)::int as n from checkins where nonce like 'cut-%' group by identifier having count(*) > 1`)
      expect(perTicket.rows).toEqual([])
    } finally {
      await ctx.app.server.close()
    }
  })
})

const recordedNonces = async (prefix: string) =>
  Number((await ctx.app.db.execute(sql`select count(*)::int as n from checkins where nonce like ${`${prefix}%`}`)).rows[0]!.n)

describe('POST /chk/v1/annul', () => {
  it('takes back the device’s own check-in so the ticket may enter again; another device cannot', async () => {
    const ticket = await buyOne()
    expect((await redeem(ticket.identifier, { nonce: 'mistake' })).json().status).toBe('ok')
    expectError(await otherGate.post('/annul', { list_id: listId, nonce: 'mistake' }), 404, 'not_found')
    const annulled = await gate.post('/annul', { list_id: listId, nonce: 'mistake' })
    expect(annulled.statusCode).toBe(200)
    expect(annulled.json()).toMatchObject({ nonce: 'mistake', successful: true, annulled_at: expect.any(String) })
    expect((await gate.post('/annul', { list_id: listId, nonce: 'mistake' })).json()).toEqual(annulled.json())
    expect((await redeem(ticket.identifier)).json().status).toBe('ok')
  })

  it('answers 404 for a refused scan, an unknown nonce, or one older than 15 minutes', async () => {
    expect((await redeem('NOSUCHTICKET', { nonce: 'refused' })).json().status).toBe('refused')
    expectError(await gate.post('/annul', { list_id: listId, nonce: 'refused' }), 404, 'not_found')
    expectError(await gate.post('/annul', { list_id: listId, nonce: 'never-sent' }), 404, 'not_found')
    const ticket = await buyOne()
    expect((await redeem(ticket.identifier, { nonce: 'old' })).json().status).toBe('ok')
    await ctx.app.db
      .update(checkins)
      .set({ createdAt: new Date(Date.now() - 16 * 60_000) })
      .where(eq(checkins.nonce, 'old'))
    expectError(await gate.post('/annul', { list_id: listId, nonce: 'old' }), 404, 'not_found')
  })
})

describe('offline: GET /chk/v1/lists/{id}/tickets and /chk/v1/search', () => {
  it('feeds every ticket of the list, then only what changed since: new, checked in, voided', async () => {
    const list = await newList({ name: 'Feed', inventory_ids: [vipId] })
    const order = await buyTickets(ctx.app, a, [{ inventory_id: vipId, quantity: 3 }])
    const all = await readFeed(
      list,
      undefined,
      order.tickets.map((t) => t.identifier),
    )
    expect(all.tickets.map((t) => t.identifier)).toEqual(expect.arrayContaining(order.tickets.map((t) => t.identifier)))
    expect(await readFeed(list, all.cursor)).toMatchObject({ tickets: [] })

    const [t1, t2] = order.tickets
    expect((await gate.post('/redeem', { code: t1!.identifier, list_ids: [list] })).json().status).toBe('ok')
    expect((await adm.post(`/orders/${order.id}/tickets/${t2!.identifier}/void`)).statusCode).toBe(200)
    const added = await buyTickets(ctx.app, a, [{ inventory_id: vipId, quantity: 1 }])
    const changed = await readFeed(list, all.cursor, [t1!.identifier, t2!.identifier, added.tickets[0]!.identifier])
    const byId = new Map(changed.tickets.map((t) => [t.identifier, t]))
    expect(byId.get(t1!.identifier)).toMatchObject({ checked_in: true, status: 'valid' })
    expect(byId.get(t2!.identifier)).toMatchObject({ status: 'voided' })
    expect(byId.has(added.tickets[0]!.identifier)).toBe(true)
    expect(byId.size).toBe(3)
  })

  it('pages through a feed with limit, and refuses a cursor it did not give', async () => {
    const list = await newList({ name: 'Paged', inventory_ids: [vipId] })
    const everyTicket = (await readFeed(list, undefined, [])).tickets.map((t) => t.identifier)
    await readFeed(list, undefined, everyTicket)
    const seen = new Set<string>()
    let cursor: string | undefined
    for (let page = 0; page < 50; page++) {
      const res = await gate.get(`/lists/${list}/tickets?limit=2${cursor ? `&cursor=${cursor}` : ''}`)
      expect(res.statusCode).toBe(200)
      for (const t of res.json().data) seen.add(t.identifier)
      cursor = res.json().next_cursor
      if (!res.json().has_more) break
    }
    expect(everyTicket.length).toBeGreaterThan(2)
    expect(everyTicket.filter((id) => !seen.has(id))).toEqual([])
    expectError(await gate.get(`/lists/${list}/tickets?cursor=bm90LWEtY3Vyc29y`), 400, 'validation_error')
    expectError(await gate.get(`/lists/00000000-0000-4000-8000-000000000000/tickets`), 404, 'not_found')
  })

  it('finds tickets by identifier prefix, order id prefix and holder name; at least 3 characters', async () => {
    const order = await buyTickets(ctx.app, a, [{ inventory_id: vipId, quantity: 1 }])
    const ticket = order.tickets[0]!
    const find = (q: string) => gate.get(`/search?list_id=${listId}&q=${encodeURIComponent(q)}`)
    expect((await find(ticket.identifier.slice(0, 8))).json().data.map((t: { identifier: string }) => t.identifier)).toContain(ticket.identifier)
    expect((await find(order.id.slice(0, 8))).json().data.map((t: { identifier: string }) => t.identifier)).toContain(ticket.identifier)
    const holder = (await find(ticket.identifier)).json().data[0].holder.name as string
    expect((await find(holder.split(' ')[1]!)).json().data.map((t: { identifier: string }) => t.identifier)).toContain(ticket.identifier)
    expect((await find('%%%')).json().data).toEqual([])
    expectError(await find('ab'), 400, 'validation_error')
  })
})

/** The list's feed after `cursor`, once it shows every one of `expected`: its tickets and the cursor to go on from. */
async function readFeed(list: string, cursor?: string, expected: readonly string[] = []): Promise<{ tickets: FeedTicket[]; cursor: string }> {
  const page = await feedPage(gate, list, cursor, expected)
  return { tickets: page.data, cursor: page.next_cursor }
}
