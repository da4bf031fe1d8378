import { randomUUID } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { checkins } from '../../src/domain/checkin/checkin.table.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory, dayFromToday } from '../factories/catalog.js'
import type { AdmClient } from '../support/adm-client.js'
import { buyTickets, checkinAdmin, feedPage, pairedDevice, scanner, useSellersInUtc } from '../support/checkin.js'
import { expectError } from '../support/customer-auth.js'

/** docs/door.md: the door's rules where a real event day went wrong (clocks, re-dated inventories, list edits, nonces). */
const ctx = useTestApp()
const [a] = useSellersInUtc(ctx)
let adm: AdmClient
let gateA: ReturnType<typeof scanner>
let gateB: ReturnType<typeof scanner>
let gateC: ReturnType<typeof scanner>
let eventId: string
let generalId: string
let vipId: string

const VARIANTS = [
  { name: 'Inteira', description: 'Full price', type: 'full' },
  { name: 'Meia', description: 'Half price, with proof at the door', type: 'half', price: 2500, checkin_attention: true },
]

beforeAll(async () => {
  adm = await checkinAdmin(ctx.app)
  const event = await createTestEvent(ctx.app, a.seller.id, { title: 'Rock in Rio' })
  eventId = event.id
  generalId = (await createTestInventory(ctx.app, event, { date: dayFromToday(0), capacity: 2000, variants: VARIANTS })).id
  vipId = (await createTestInventory(ctx.app, event, { date: dayFromToday(0), capacity: 50, name: 'VIP' })).id
  gateA = scanner(ctx.app, (await pairedDevice(ctx.app, adm, a.seller.id, { name: 'Gate A' })).headers)
  gateB = scanner(ctx.app, (await pairedDevice(ctx.app, adm, a.seller.id, { name: 'Gate B' })).headers)
  gateC = scanner(ctx.app, (await pairedDevice(ctx.app, adm, a.seller.id, { name: 'Gate C' })).headers)
})

const newList = async (body: Record<string, unknown>) => {
  const res = await adm.post(`/events/${eventId}/checkin-lists`, body)
  expect(res.statusCode).toBe(201)
  return res.json().id as string
}
const buy = async (inventory_id: string, quantity = 1, variant?: string) =>
  (await buyTickets(ctx.app, a, [{ inventory_id, quantity, ...(variant ? { variant } : {}) }])).tickets
const feed = (listId: string, cursor?: string, expected: readonly string[] = []) => feedPage(gateA, listId, cursor, expected)
const status = async (listId: string, query = '') => (await adm.get(`/checkin-lists/${listId}/status${query}`)).json()

describe('a gate whose clock runs fast', () => {
  it('cannot place an exit ahead of later entries: three gates, one 4 minutes fast, admit the ticket once', async () => {
    const listId = await newList({ name: 'Clocks' })
    const [ticket] = await buy(generalId, 1, 'Inteira')
    const scan = (gate: typeof gateA, extra: object = {}) => gate.post('/redeem', { code: ticket!.identifier, list_ids: [listId], ...extra })
    expect((await scan(gateA)).json().status).toBe('ok')
    const fast = new Date(Date.now() + 4 * 60_000).toISOString()
    const exit = (await scan(gateB, { type: 'exit', scanned_at: fast })).json()
    expect(exit).toMatchObject({ status: 'ok', ticket: { inside: false } })
    expect(Date.parse(exit.checkin.scanned_at)).toBeLessThanOrEqual(Date.now())
    // Back in at A; then C and A again while inside: refused.
    expect((await scan(gateA)).json()).toMatchObject({ status: 'ok', ticket: { inside: true } })
    expect((await scan(gateC)).json()).toMatchObject({ status: 'refused', reason: 'already_redeemed', ticket: { inside: true } })
    expect((await scan(gateA)).json()).toMatchObject({ status: 'refused', reason: 'already_redeemed' })
    expect(await status(listId)).toMatchObject({ tickets: expect.any(Number), inside: 1 })
  })
})

describe('a re-dated inventory', () => {
  it('moves its tickets: the window of entry, the feed and the status follow its current date', async () => {
    const event = await createTestEvent(ctx.app, a.seller.id, { title: 'Moved show' })
    const inventory = await createTestInventory(ctx.app, event, { date: dayFromToday(3), name: 'Moved' })
    const listId = (await adm.post(`/events/${event.id}/checkin-lists`, { name: 'Door' })).json().id as string
    const [ticket] = (await buyTickets(ctx.app, a, [{ inventory_id: inventory.id, quantity: 1 }])).tickets
    const first = await feed(listId, undefined, [ticket!.identifier])
    expect(first.data.map((t) => t.date)).toEqual([dayFromToday(3)])
    expect((await gateA.post('/redeem', { code: ticket!.identifier, list_ids: [listId] })).json()).toMatchObject({ reason: 'invalid_time' })

    expect((await adm.put(`/inventories/${inventory.id}`, { date: dayFromToday(0) })).statusCode).toBe(200)
    const moved = await feed(listId, first.next_cursor, [ticket!.identifier])
    expect(moved).toMatchObject({ reset: false, data: [{ identifier: ticket!.identifier, date: dayFromToday(0) }] })
    expect(await status(listId, `?date=${dayFromToday(0)}`)).toMatchObject({ tickets: 1, inventories: [{ date: dayFromToday(0) }] })
    expect(await status(listId, `?date=${dayFromToday(3)}`)).toMatchObject({ tickets: 0, inventories: [] })
    expect((await gateA.post('/redeem', { code: ticket!.identifier, list_ids: [listId] })).json()).toMatchObject({
      status: 'ok',
      ticket: { date: dayFromToday(0) },
    })
  })
})

describe('a list changed while devices keep a copy', () => {
  it('restarts its feed when widened: the next page after the old cursor returns every ticket, with reset', async () => {
    const listId = await newList({ name: 'Widened', inventory_ids: [generalId] })
    const [general] = await buy(generalId, 1, 'Inteira')
    const [vip] = await buy(vipId)
    const before = await feed(listId, undefined, [general!.identifier])
    expect(before.reset).toBe(true)
    expect(before.data.map((t) => t.identifier)).toContain(general!.identifier)
    expect(before.data.map((t) => t.identifier)).not.toContain(vip!.identifier)
    expect((await feed(listId, before.next_cursor)).data).toEqual([])

    expect((await adm.put(`/checkin-lists/${listId}`, { name: 'Widened', inventory_ids: [generalId, vipId] })).statusCode).toBe(200)
    const after = await feed(listId, before.next_cursor, [general!.identifier, vip!.identifier])
    expect(after.reset).toBe(true)
    expect(after.data.map((t) => t.identifier)).toEqual(expect.arrayContaining([general!.identifier, vip!.identifier]))
    // A rename changes nothing a gate judges by: no restart.
    expect((await adm.put(`/checkin-lists/${listId}`, { name: 'Renamed', inventory_ids: [generalId, vipId] })).statusCode).toBe(200)
    expect(await feed(listId, after.next_cursor)).toMatchObject({ reset: false, data: [] })
  })

  it('restarts its feed when narrowed while a device is offline: on its return it learns the VIP ticket is no longer admitted', async () => {
    const listId = await newList({ name: 'Narrowed' })
    const [vip] = await buy(vipId)
    const kept = await feed(listId, undefined, [vip!.identifier])
    expect(kept.data.map((t) => t.identifier)).toContain(vip!.identifier)
    // Offline meanwhile: the list is narrowed to the general inventory.
    expect((await adm.put(`/checkin-lists/${listId}`, { name: 'Narrowed', inventory_ids: [generalId] })).statusCode).toBe(200)
    const back = await feed(listId, kept.next_cursor)
    expect(back.reset).toBe(true)
    expect(back.data.map((t) => t.identifier)).not.toContain(vip!.identifier)
    expect((await gateA.post('/redeem', { code: vip!.identifier, list_ids: [listId] })).json()).toMatchObject({ status: 'refused', reason: 'product' })
  })

  it('reads a cursor of the earlier format (no revision) as a restart', async () => {
    const listId = await newList({ name: 'Old cursor' })
    const old = Buffer.from(`1:${randomUUID()}`).toString('base64url')
    expect((await feed(listId, old)).reset).toBe(true)
  })
})

describe('nonces', () => {
  it('answers 409 idempotency_conflict for a nonce reused with another code, and records nothing', async () => {
    const listId = await newList({ name: 'Nonces' })
    const [one, two] = await buy(generalId, 2, 'Inteira')
    const scan = (code: string, extra: object = {}) => gateA.post('/redeem', { code, list_ids: [listId], nonce: 'same', ...extra })
    const first = await scan(one!.identifier)
    expect(first.json().status).toBe('ok')
    expect((await scan(one!.identifier)).json()).toEqual(first.json())
    expectError(await scan(two!.identifier), 409, 'idempotency_conflict')
    expectError(await scan('GARBAGE'), 409, 'idempotency_conflict')
    expectError(await scan(one!.identifier, { type: 'exit' }), 409, 'idempotency_conflict')
    const recorded = await ctx.app.db.select().from(checkins).where(eq(checkins.listId, listId))
    expect(recorded).toHaveLength(1)
    // Ticket 2 was never judged: it still enters.
    expect((await gateA.post('/redeem', { code: two!.identifier, list_ids: [listId] })).json().status).toBe('ok')
  })

  it('answers nonce_conflict in a batch, within the batch and against earlier uploads, and invalid_scan to a scan without a nonce', async () => {
    const listId = await newList({ name: 'Batch nonces' })
    const [one, two] = await buy(generalId, 2, 'Inteira')
    const scan = (code: string, nonce: string) => ({ code, list_ids: [listId], force: true, nonce })
    const res = await gateA.post('/redeem/batch', { scans: [scan(one!.identifier, 'n1'), scan(two!.identifier, 'n1'), scan(one!.identifier, 'n1')] })
    expect(res.json().results.map((r: { status: string; reason: string | null }) => [r.status, r.reason])).toEqual([
      ['ok', null],
      ['refused', 'nonce_conflict'],
      ['ok', null],
    ])
    expect(res.json().results[2]).toEqual(res.json().results[0])
    const again = await gateA.post('/redeem/batch', { scans: [scan('GARBAGE', 'n1')] })
    expect(again.json().results).toEqual([{ status: 'refused', reason: 'nonce_conflict', attention: false, ticket: null, list_id: null, checkin: null }])
    expect(await ctx.app.db.select().from(checkins).where(eq(checkins.listId, listId))).toHaveLength(1)
    // A scan without a nonce is answered in its place, and records nothing.
    const bare = await gateA.post('/redeem/batch', { scans: [{ code: two!.identifier, list_ids: [listId] }] })
    expect(bare.json().results).toEqual([
      { ...again.json().results[0], reason: 'invalid_scan', details: [{ path: 'scans.0.nonce', message: expect.any(String) }] },
    ])
    expect(await ctx.app.db.select().from(checkins).where(eq(checkins.listId, listId))).toHaveLength(1)
  })
})

describe('forced scans', () => {
  it('are for batch uploads only, and a thousand forced re-entries of one ticket are answered as one batch, each recorded', async () => {
    const listId = await newList({ name: 'Forced' })
    const [ticket] = await buy(generalId, 1, 'Inteira')
    expectError(await gateA.post('/redeem', { code: ticket!.identifier, list_ids: [listId], force: true }), 400, 'validation_error')
    const at = new Date(Date.now() - 60_000).toISOString()
    const scans = Array.from({ length: 1000 }, (_, n) => ({ code: ticket!.identifier, list_ids: [listId], force: true, nonce: `f-${n}`, scanned_at: at }))
    const res = await gateA.post('/redeem/batch', { scans })
    expect(res.statusCode).toBe(200)
    const results = res.json().results as { status: string; reason: string | null; checkin: { forced: boolean } }[]
    expect(results[0]).toMatchObject({ status: 'ok', reason: null, checkin: { forced: false } })
    expect(results.slice(1).every((r) => r.status === 'ok' && r.reason === 'already_redeemed' && r.checkin.forced)).toBe(true)
    const [count] = (await ctx.app.db.execute(sql`select count(*)::int as n from checkins where list_id = ${listId}::uuid`)).rows as { n: number }[]
    expect(count!.n).toBe(1000)
  })
})

describe('a list the device cannot see', () => {
  it('is 404 not_found naming it online; in a batch, that scan alone is invalid_scan naming it and the others are judged', async () => {
    const listId = await newList({ name: 'Typo' })
    const [ticket] = await buy(generalId, 1, 'Inteira')
    const typo = randomUUID()
    const online = await gateA.post('/redeem', { code: ticket!.identifier, list_ids: [listId, typo] })
    expectError(online, 404, 'not_found')
    expect(online.json().details).toEqual([{ path: 'list_ids.1', message: expect.any(String) }])
    expect(await ctx.app.db.select().from(checkins).where(eq(checkins.identifier, ticket!.identifier))).toHaveLength(0)
    const batch = await gateA.post('/redeem/batch', {
      scans: [
        { code: ticket!.identifier, list_ids: [typo], nonce: 'x2' },
        { code: ticket!.identifier, list_ids: [listId], nonce: 'x1' },
      ],
    })
    expect(batch.statusCode).toBe(200)
    const [typoAnswer, genuine] = batch.json().results
    expect(typoAnswer).toMatchObject({ status: 'refused', reason: 'invalid_scan', details: [{ path: 'scans.0.list_ids.0', message: expect.any(String) }] })
    // The genuine ticket still enters through the right list, and only that scan is recorded.
    expect(genuine).toMatchObject({ status: 'ok', reason: null })
    expect(await ctx.app.db.select().from(checkins).where(eq(checkins.identifier, ticket!.identifier))).toHaveLength(1)
  })
})

describe('who is inside', () => {
  it('is in the feed, the search and the answers: checked in stays true after an exit, inside does not', async () => {
    const listId = await newList({ name: 'Inside' })
    const [ticket] = await buy(generalId, 1, 'Inteira')
    const start = await feed(listId)
    expect((await gateA.post('/redeem', { code: ticket!.identifier, list_ids: [listId] })).json().ticket).toMatchObject({ checked_in: true, inside: true })
    expect((await gateA.post('/redeem', { code: ticket!.identifier, list_ids: [listId], type: 'exit' })).json().ticket).toMatchObject({
      checked_in: true,
      inside: false,
    })
    const changed = await feed(listId, start.next_cursor, [ticket!.identifier])
    expect(changed.data.find((t) => t.identifier === ticket!.identifier)).toMatchObject({ checked_in: true, inside: false })
    const found = await gateA.get(`/search?list_id=${listId}&q=${ticket!.identifier.slice(0, 8)}`)
    expect(found.json().data[0]).toMatchObject({ identifier: ticket!.identifier, checked_in: true, inside: false })
  })
})

describe('attention', () => {
  it('is answered for a variant or an inventory that asks the gate to check something, and changing it returns its tickets in the feed', async () => {
    const listId = await newList({ name: 'Attention' })
    const [full] = await buy(generalId, 1, 'Inteira')
    const [half] = await buy(generalId, 1, 'Meia')
    const [vip] = await buy(vipId)
    const scan = (code: string) => gateA.post('/redeem', { code, list_ids: [listId] })
    expect((await scan(full!.identifier)).json()).toMatchObject({ status: 'ok', attention: false, ticket: { attention: false } })
    expect((await scan(half!.identifier)).json()).toMatchObject({ status: 'ok', attention: true, ticket: { attention: true } })
    const start = await feed(listId)
    const updated = await adm.put(`/inventories/${vipId}`, { checkin_attention: true })
    expect(updated.json()).toMatchObject({ checkin_attention: true })
    expect((await feed(listId, start.next_cursor, [vip!.identifier])).data.map((t) => t.identifier)).toContain(vip!.identifier)
    expect((await scan(vip!.identifier)).json()).toMatchObject({ status: 'ok', attention: true })
    expect((await scan('NOSUCHTICKET')).json()).toMatchObject({ status: 'refused', attention: false })
    await adm.put(`/inventories/${vipId}`, { checkin_attention: false })
  })
})

describe('a device’s lists and counts', () => {
  it('names each list’s event and dates, and serves the list status to the device, by date', async () => {
    const listId = await newList({ name: 'Main entrance' })
    const lists = (await gateA.get('/lists')).json().data as { id: string; event: { title: string; first_date: string; last_date: string } }[]
    expect(lists.find((l) => l.id === listId)!.event).toEqual({ title: 'Rock in Rio', first_date: dayFromToday(0), last_date: dayFromToday(0), venue: null })
    const mine = await gateA.get(`/lists/${listId}/status?date=${dayFromToday(0)}`)
    expect(mine.statusCode).toBe(200)
    expect(mine.json()).toEqual(await status(listId, `?date=${dayFromToday(0)}`))
    expectError(await gateA.get(`/lists/${randomUUID()}/status`), 404, 'not_found')
    expectError(await gateA.get(`/lists/${listId}/status?date=tomorrow`), 400, 'validation_error')
  })
})
