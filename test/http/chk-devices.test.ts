import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type { LightMyRequestResponse } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import type { EventRow } from '../../src/domain/catalog/events.repo.js'
import { checkinDevices } from '../../src/domain/checkin/checkin.table.js'
import { buildTestApp, useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory, dayFromToday } from '../factories/catalog.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { buyTickets, checkinAdmin, MANY_PAIRINGS, pairedDevice, scanner, useSellersInUtc } from '../support/checkin.js'
import { expectError } from '../support/customer-auth.js'
import { createStaff } from '../support/staff.js'

/** docs/door.md: scanner devices, their pairing, and the token that opens `/chk/v1` and nothing else. */
const ctx = useTestApp({ env: MANY_PAIRINGS })
const [a, b] = useSellersInUtc(ctx)
let adm: AdmClient
let writer: AdmClient
let reader: AdmClient
let outsider: AdmClient
let eventX: EventRow
let eventY: EventRow
let eventOfB: EventRow
let inventoryX: string
let inventoryY: string
let listX: string
let listY: string
let listOfB: string

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000'

beforeAll(async () => {
  adm = await checkinAdmin(ctx.app)
  writer = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.checkin.read', 'adm.checkin.write'] })).auth)
  reader = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.checkin.read'] })).auth)
  outsider = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.orders.read', 'adm.orders.write', 'adm.sellers.read'] })).auth)
  eventX = await createTestEvent(ctx.app, a.seller.id)
  eventY = await createTestEvent(ctx.app, a.seller.id)
  eventOfB = await createTestEvent(ctx.app, b.seller.id)
  inventoryX = (await createTestInventory(ctx.app, eventX, { date: dayFromToday(0), capacity: 100 })).id
  inventoryY = (await createTestInventory(ctx.app, eventY, { date: dayFromToday(0), capacity: 100 })).id
  await createTestInventory(ctx.app, eventOfB, { date: dayFromToday(0), capacity: 100 })
  const makeList = async (eventId: string, name: string) => {
    const res = await adm.post(`/events/${eventId}/checkin-lists`, { name })
    expect(res.statusCode, res.body).toBe(201)
    return res.json().id as string
  }
  listX = await makeList(eventX.id, 'X gate')
  listY = await makeList(eventY.id, 'Y gate')
  listOfB = await makeList(eventOfB.id, 'B gate')
})

const pair = (pairingCode: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'POST', url: '/chk/v1/pair', headers, payload: { pairing_code: pairingCode } })

async function createDevice(client: AdmClient, sellerId: string, body: object = { name: 'Gate 1' }) {
  const res = await client.post(`/sellers/${sellerId}/devices`, body)
  expect(res.statusCode, res.body).toBe(201)
  return res.json() as { id: string; pairing_code: string; pairing_expires_at: string; last_seen_at: string | null; revoked_at: string | null }
}

const deviceRow = async (id: string) => (await ctx.app.db.select().from(checkinDevices).where(eq(checkinDevices.id, id)))[0]!

describe('POST /adm/v1/sellers/{id}/devices', () => {
  it('creates a device with a long pairing code valid for 24 hours, in the Device shape', async () => {
    const before = Date.now()
    const res = await writer.post(`/sellers/${a.seller.id}/devices`, { name: 'Main entrance' })
    const after = Date.now()
    expect(res.statusCode, res.body).toBe(201)
    const body = res.json()
    expect(body).toMatchObject({
      id: expect.any(String),
      seller_id: a.seller.id,
      name: 'Main entrance',
      event_ids: null,
      last_seen_at: null,
      revoked_at: null,
      created_at: expect.any(String),
      pairing_code: expect.any(String),
      pairing_url: `http://127.0.0.1:3000/scan/#pair=${body.pairing_code}`,
      pairing_expires_at: expect.any(String),
    })
    // At least 20 characters of code, whatever is used to group them for reading.
    expect(body.pairing_code.replace(/[^A-Za-z0-9]/g, '').length).toBeGreaterThanOrEqual(20)
    const expires = Date.parse(body.pairing_expires_at)
    expect(expires).toBeGreaterThanOrEqual(before + 24 * 3600_000 - 5_000)
    expect(expires).toBeLessThanOrEqual(after + 24 * 3600_000 + 5_000)
    expect(Math.abs(Date.parse(body.created_at) - before)).toBeLessThan(60_000)

    // Shown this once: reading the device never answers the code.
    const read = await reader.get(`/devices/${body.id}`)
    expect(read.statusCode).toBe(200)
    const { pairing_code: _code, pairing_url: _url, pairing_expires_at: _expires, ...device } = body
    expect(read.json()).toEqual(device)
    expect(read.body).not.toContain(body.pairing_code)
    expect(read.json()).not.toHaveProperty('pairing_expires_at')
  })

  it('limits a device to events of its seller, and refuses another seller’s event or an unknown one with 400 naming it', async () => {
    const limited = await writer.post(`/sellers/${a.seller.id}/devices`, { name: 'X only', event_ids: [eventX.id] })
    expect(limited.statusCode, limited.body).toBe(201)
    expect(limited.json().event_ids).toEqual([eventX.id])

    const before = (await reader.get(`/sellers/${a.seller.id}/devices?limit=100`)).json().meta.total
    for (const eventIds of [
      [eventX.id, eventOfB.id],
      [eventX.id, randomUUID()],
    ]) {
      const res = await writer.post(`/sellers/${a.seller.id}/devices`, { name: 'Bad', event_ids: eventIds })
      expectError(res, 400, 'validation_error')
      expect(res.json().details).toEqual([expect.objectContaining({ path: 'event_ids.1' })])
    }
    // Nothing was created by the refused calls.
    expect((await reader.get(`/sellers/${a.seller.id}/devices?limit=100`)).json().meta.total).toBe(before)
  })

  it('answers 404 for an unknown seller and 400 for a malformed id or body', async () => {
    expectError(await writer.post(`/sellers/${UNKNOWN_ID}/devices`, { name: 'Gate' }), 404, 'not_found')
    expectError(await writer.post('/sellers/not-a-uuid/devices', { name: 'Gate' }), 400, 'validation_error')
    expectError(await writer.post(`/sellers/${a.seller.id}/devices`, {}), 400, 'validation_error')
    expectError(await writer.post(`/sellers/${a.seller.id}/devices`, { name: 'Gate', extra: true }), 400, 'validation_error')
  })

  it('needs adm.checkin.write: 401 without a token, 403 for a reader or a member of staff without check-in permissions', async () => {
    const anonymous = admClient(ctx.app, {})
    expectError(await anonymous.post(`/sellers/${a.seller.id}/devices`, { name: 'Gate' }), 401, 'unauthorized')
    expectError(await reader.post(`/sellers/${a.seller.id}/devices`, { name: 'Gate' }), 403, 'forbidden')
    expectError(await outsider.post(`/sellers/${a.seller.id}/devices`, { name: 'Gate' }), 403, 'forbidden')
  })
})

describe('GET /adm/v1/sellers/{id}/devices and /adm/v1/devices/{id}', () => {
  it('lists a seller’s devices newest first, revoked ones included, and reads one', async () => {
    const first = await createDevice(writer, b.seller.id, { name: 'B first' })
    const second = await createDevice(writer, b.seller.id, { name: 'B second' })
    expect((await writer.post(`/devices/${first.id}/revoke`)).statusCode).toBe(200)

    const res = await reader.get(`/sellers/${b.seller.id}/devices`)
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body.data.map((d: { id: string }) => d.id)).toEqual([second.id, first.id])
    expect(body.meta).toEqual({ count: 2, limit: 20, page: 1, total: 2 })
    expect(body.data.every((d: { seller_id: string }) => d.seller_id === b.seller.id)).toBe(true)
    expect(body.data[1].revoked_at).toEqual(expect.any(String))
    expect(res.body).not.toContain(first.pairing_code)
    expect(res.body).not.toContain(second.pairing_code)

    const paged = (await reader.get(`/sellers/${b.seller.id}/devices?limit=1&page=2`)).json()
    expect(paged.data.map((d: { id: string }) => d.id)).toEqual([first.id])
    expect(paged.meta).toEqual({ count: 1, limit: 1, page: 2, total: 2 })

    const one = await reader.get(`/devices/${second.id}`)
    expect(one.statusCode).toBe(200)
    expect(one.json()).toMatchObject({ id: second.id, seller_id: b.seller.id, name: 'B second', event_ids: null, revoked_at: null })
  })

  it('answers 404 for an unknown seller or device, 400 for a malformed id', async () => {
    expectError(await reader.get(`/sellers/${UNKNOWN_ID}/devices`), 404, 'not_found')
    expectError(await reader.get(`/devices/${UNKNOWN_ID}`), 404, 'not_found')
    expectError(await reader.get('/devices/not-a-uuid'), 400, 'validation_error')
    expectError(await writer.post(`/devices/${UNKNOWN_ID}/revoke`), 404, 'not_found')
  })

  it('needs adm.checkin.read to list or read, adm.checkin.write to revoke', async () => {
    const device = await createDevice(writer, a.seller.id)
    const anonymous = admClient(ctx.app, {})
    expectError(await anonymous.get(`/sellers/${a.seller.id}/devices`), 401, 'unauthorized')
    expectError(await anonymous.get(`/devices/${device.id}`), 401, 'unauthorized')
    expectError(await anonymous.post(`/devices/${device.id}/revoke`), 401, 'unauthorized')
    expectError(await outsider.get(`/sellers/${a.seller.id}/devices`), 403, 'forbidden')
    expectError(await outsider.get(`/devices/${device.id}`), 403, 'forbidden')
    expectError(await outsider.post(`/devices/${device.id}/revoke`), 403, 'forbidden')
    expectError(await reader.post(`/devices/${device.id}/revoke`), 403, 'forbidden')
    expect((await reader.get(`/devices/${device.id}`)).json().revoked_at).toBeNull()
  })
})

describe('POST /chk/v1/pair', () => {
  it('exchanges the code once for the device and its token; the same code again is 401 invalid_token', async () => {
    const device = await createDevice(writer, a.seller.id, { name: 'Pairing' })
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/chk/v1/pair',
      payload: { pairing_code: device.pairing_code, hardware: 'Zebra TC21', software: 'gate-app 1.2.0' },
    })
    expect(res.statusCode, res.body).toBe(201)
    const body = res.json()
    expect(body).toEqual({ device: expect.objectContaining({ id: device.id, seller_id: a.seller.id, revoked_at: null }), token: expect.any(String) })
    expect(body.token.length).toBeGreaterThanOrEqual(32)
    expect((await scanner(ctx.app, { authorization: `Device ${body.token}` }).get('/lists')).statusCode).toBe(200)

    expectError(await pair(device.pairing_code), 401, 'invalid_token')
    // The refused second use leaves the first token working.
    expect((await scanner(ctx.app, { authorization: `Device ${body.token}` }).get('/lists')).statusCode).toBe(200)
  })

  it('refuses an unknown code and an expired one with 401 invalid_token', async () => {
    expectError(await pair('AAAA-BBBB-CCCC-DDDD-EEEE'), 401, 'invalid_token')
    const device = await createDevice(writer, a.seller.id, { name: 'Expired' })
    await ctx.app.db
      .update(checkinDevices)
      .set({ pairingExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(checkinDevices.id, device.id))
    expectError(await pair(device.pairing_code), 401, 'invalid_token')
    expect((await reader.get(`/devices/${device.id}`)).json().last_seen_at).toBeNull()
  })

  it('refuses a malformed body with 400', async () => {
    expectError(await ctx.app.inject({ method: 'POST', url: '/chk/v1/pair', payload: {} }), 400, 'validation_error')
    expectError(await ctx.app.inject({ method: 'POST', url: '/chk/v1/pair', payload: { pairing_code: 'X', extra: 1 } }), 400, 'validation_error')
  })

  it('gives the token to exactly one of 10 simultaneous pairings with one code', async () => {
    const device = await createDevice(writer, a.seller.id, { name: 'Race' })
    const answers = await Promise.all(Array.from({ length: 10 }, () => pair(device.pairing_code)))
    const won = answers.filter((r) => r.statusCode === 201)
    expect(won).toHaveLength(1)
    for (const lost of answers.filter((r) => r.statusCode !== 201)) expectError(lost, 401, 'invalid_token')
    expect((await scanner(ctx.app, { authorization: `Device ${won[0]!.json().token}` }).get('/lists')).statusCode).toBe(200)
  })

  it('stores neither the token nor the pairing code in clear', async () => {
    const device = await createDevice(writer, a.seller.id, { name: 'Hashes' })
    const plainCode = device.pairing_code.replace(/[^A-Za-z0-9]/g, '')
    const beforePairing = JSON.stringify(await deviceRow(device.id))
    expect(beforePairing).not.toContain(device.pairing_code)
    expect(beforePairing).not.toContain(plainCode)
    expect(beforePairing.toUpperCase()).not.toContain(plainCode.toUpperCase())

    const { token } = (await pair(device.pairing_code)).json()
    const afterPairing = JSON.stringify(await deviceRow(device.id))
    for (const secret of [token, token.replace(/^[a-z]+_/, ''), device.pairing_code, plainCode]) expect(afterPairing).not.toContain(secret)
    const audit = JSON.stringify(await ctx.app.db.select().from(auditLog).where(eq(auditLog.targetId, device.id)))
    expect(audit).not.toBe('[]')
    for (const secret of [token, device.pairing_code, plainCode]) expect(audit).not.toContain(secret)
  })

  it('takes the code whatever its case and dashes', async () => {
    const device = await createDevice(writer, a.seller.id, { name: 'Typed' })
    const typed = device.pairing_code.replace(/-/g, '').toLowerCase()
    expect(typed).not.toBe(device.pairing_code)
    const res = await pair(typed)
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json().device.id).toBe(device.id)
  })
})

describe('the pairing rate limit', () => {
  it('answers the 4th attempt from one address in a minute with 429 rate_limited and Retry-After, even with a good code', async () => {
    const limited = await buildTestApp({ env: { CHK_PAIR_LIMIT_PER_IP: '3' } })
    try {
      const device = await createDevice(writer, a.seller.id, { name: 'Limited pairing' })
      const attempt = (code: string, remoteAddress: string) =>
        limited.inject({ method: 'POST', url: '/chk/v1/pair', remoteAddress, payload: { pairing_code: code } })
      for (let i = 0; i < 3; i++) expectError(await attempt(`WRONG-CODE-${i}`, '198.51.100.7'), 401, 'invalid_token')
      const fourth = await attempt(device.pairing_code, '198.51.100.7')
      expectError(fourth, 429, 'rate_limited')
      const retryAfter = Number(fourth.headers['retry-after'])
      expect(Number.isInteger(retryAfter)).toBe(true)
      expect(retryAfter).toBeGreaterThanOrEqual(1)
      expect(retryAfter).toBeLessThanOrEqual(60)
      // The limited attempt did not use the code: another address pairs with it.
      expect((await attempt(device.pairing_code, '198.51.100.8')).statusCode).toBe(201)
    } finally {
      await limited.close()
    }
  })
})

describe('a device token', () => {
  it('opens /chk/v1 and is refused (401) on /stf/v1, /adm/v1 and /iam/v1', async () => {
    const device = await pairedDevice(ctx.app, adm, a.seller.id)
    expect((await scanner(ctx.app, device.headers).get('/lists')).statusCode).toBe(200)
    for (const url of ['/stf/v1/events', '/stf/v1/seller', '/adm/v1/sellers', `/adm/v1/devices/${device.id}`, '/iam/v1/users', '/iam/v1/permissions']) {
      expectError(await ctx.app.inject({ method: 'GET', url, headers: device.headers }), 401, 'unauthorized')
    }
    // Presented as a Bearer token it is no staff token either.
    const token = device.headers.authorization.slice('Device '.length)
    expectError(await ctx.app.inject({ method: 'GET', url: '/adm/v1/sellers', headers: { authorization: `Bearer ${token}` } }), 401, 'unauthorized')
    expectError(await ctx.app.inject({ method: 'GET', url: '/iam/v1/users', headers: { authorization: `Bearer ${token}` } }), 401, 'unauthorized')
  })

  it('is the only credential /chk/v1 takes: Basic, Bearer, malformed or unknown Device headers are 401', async () => {
    const staff = await createStaff(ctx.app, { roles: ['admin'] })
    const refused = [
      {},
      a.auth,
      staff.auth,
      { authorization: 'Device' },
      { authorization: 'Device ' },
      { authorization: 'Device not-a-token' },
      { authorization: `Device dev_${'A'.repeat(43)}` },
      { authorization: `Device dev_${'A'.repeat(43)} extra` },
    ]
    for (const headers of refused) {
      expectError(await scanner(ctx.app, headers).get('/lists'), 401, 'unauthorized')
      expectError(await scanner(ctx.app, headers).post('/redeem', { code: 'ANY', list_ids: [listX] }), 401, 'unauthorized')
    }
  })

  it('stops working at the very next request once the device is revoked; revoking again answers the same revoked_at', async () => {
    const device = await pairedDevice(ctx.app, adm, a.seller.id)
    const gate = scanner(ctx.app, device.headers)
    expect((await gate.get('/lists')).statusCode).toBe(200)
    const revoked = await writer.post(`/devices/${device.id}/revoke`)
    expect(revoked.statusCode, revoked.body).toBe(200)
    expect(revoked.json()).toMatchObject({ id: device.id, revoked_at: expect.any(String) })
    expectError(await gate.get('/lists'), 401, 'unauthorized')
    expectError(await gate.post('/redeem', { code: 'ANY', list_ids: [listX] }), 401, 'unauthorized')

    const again = await writer.post(`/devices/${device.id}/revoke`)
    expect(again.statusCode).toBe(200)
    expect(again.json()).toEqual(revoked.json())
    expect((await reader.get(`/devices/${device.id}`)).json().revoked_at).toBe(revoked.json().revoked_at)
  })

  it('is never issued for a revoked device: its unused pairing code no longer pairs', async () => {
    const device = await createDevice(writer, a.seller.id, { name: 'Lost in the mail' })
    expect((await writer.post(`/devices/${device.id}/revoke`)).statusCode).toBe(200)
    expectError(await pair(device.pairing_code), 401, 'invalid_token')
  })

  it('records when the device was last seen', async () => {
    const device = await pairedDevice(ctx.app, adm, a.seller.id)
    await ctx.app.db.update(checkinDevices).set({ lastSeenAt: null }).where(eq(checkinDevices.id, device.id))
    expect((await reader.get(`/devices/${device.id}`)).json().last_seen_at).toBeNull()
    const before = Date.now()
    expect((await scanner(ctx.app, device.headers).get('/lists')).statusCode).toBe(200)
    await expect.poll(async () => (await reader.get(`/devices/${device.id}`)).json().last_seen_at).not.toBeNull()
    const seen = Date.parse((await reader.get(`/devices/${device.id}`)).json().last_seen_at)
    expect(Math.abs(seen - before)).toBeLessThan(60_000)
  })
})

/** An answer without what differs between any two scans: ids, the code presented and the times. */
function scanShape(res: LightMyRequestResponse, presented: string) {
  expect(res.statusCode, res.body).toBe(200)
  const body = res.json()
  expect(body.checkin).toMatchObject({ identifier: presented })
  const { id: _id, identifier: _identifier, scanned_at: _scanned, created_at: _created, ...checkin } = body.checkin
  return { ...body, checkin }
}

describe('what a device sees', () => {
  it('lists only the lists of its events, of its seller', async () => {
    const limited = await pairedDevice(ctx.app, adm, a.seller.id, { event_ids: [eventX.id] })
    const onlyX = (await scanner(ctx.app, limited.headers).get('/lists')).json()
    expect(onlyX.data.map((l: { id: string }) => l.id)).toEqual([listX])
    expect(onlyX.data[0]).toMatchObject({ id: listX, event_id: eventX.id, name: 'X gate' })

    const everyEvent = await pairedDevice(ctx.app, adm, a.seller.id)
    const all = (await scanner(ctx.app, everyEvent.headers).get('/lists')).json()
    expect(all.data.map((l: { id: string }) => l.id).sort()).toEqual([listX, listY].sort())

    const ofB = await pairedDevice(ctx.app, adm, b.seller.id)
    expect((await scanner(ctx.app, ofB.headers).get('/lists')).json().data.map((l: { id: string }) => l.id)).toEqual([listOfB])
  })

  it('answers a ticket of an event outside its scope `invalid`, exactly like an unknown code, and does not use it', async () => {
    const limited = scanner(ctx.app, (await pairedDevice(ctx.app, adm, a.seller.id, { event_ids: [eventX.id] })).headers)
    const [ticketY] = (await buyTickets(ctx.app, a, [{ inventory_id: inventoryY, quantity: 1 }])).tickets
    const unknown = `NOPE${randomUUID().slice(0, 8).toUpperCase()}`

    // A list of an event outside its scope is one it cannot see: 404, whatever the code.
    for (const code of [ticketY!.identifier, ticketY!.code, unknown]) {
      const res = await limited.post('/redeem', { code, list_ids: [listY] })
      expectError(res, 404, 'not_found')
      expect(res.body).not.toContain(eventY.id)
    }
    const byIdentifier = await limited.post('/redeem', { code: ticketY!.identifier, list_ids: [listX] })
    const bySignedCode = await limited.post('/redeem', { code: ticketY!.code, list_ids: [listX] })
    const ofUnknown = await limited.post('/redeem', { code: unknown, list_ids: [listX] })
    const expected = scanShape(ofUnknown, unknown)
    expect(expected).toMatchObject({ status: 'refused', reason: 'invalid', ticket: null })
    expect(scanShape(byIdentifier, ticketY!.identifier)).toEqual(expected)
    expect(scanShape(bySignedCode, ticketY!.code.slice(0, 128))).toEqual(expected)
    expect(byIdentifier.body).not.toContain(eventY.id)
    expect(bySignedCode.body).not.toContain(eventY.id)

    // Nothing was spent: a device of every event lets it in on Y's list.
    const everyEvent = scanner(ctx.app, (await pairedDevice(ctx.app, adm, a.seller.id)).headers)
    expect((await everyEvent.post('/redeem', { code: ticketY!.identifier, list_ids: [listY] })).json()).toMatchObject({
      status: 'ok',
      ticket: { identifier: ticketY!.identifier, checked_in: true },
    })
  })

  it('answers another seller’s ticket `invalid`, exactly like an unknown code', async () => {
    const gateOfB = scanner(ctx.app, (await pairedDevice(ctx.app, adm, b.seller.id)).headers)
    const [ticketOfA] = (await buyTickets(ctx.app, a, [{ inventory_id: inventoryX, quantity: 1 }])).tickets
    const unknown = `NOPE${randomUUID().slice(0, 8).toUpperCase()}`

    const ofUnknown = await gateOfB.post('/redeem', { code: unknown, list_ids: [listOfB] })
    const expected = scanShape(ofUnknown, unknown)
    expect(expected).toMatchObject({ status: 'refused', reason: 'invalid', ticket: null, list_id: listOfB })
    const byIdentifier = await gateOfB.post('/redeem', { code: ticketOfA!.identifier, list_ids: [listOfB] })
    const bySignedCode = await gateOfB.post('/redeem', { code: ticketOfA!.code, list_ids: [listOfB] })
    expect(scanShape(byIdentifier, ticketOfA!.identifier)).toEqual(expected)
    expect(scanShape(bySignedCode, ticketOfA!.code.slice(0, 128))).toEqual(expected)
    for (const res of [byIdentifier, bySignedCode]) {
      expect(res.body).not.toContain(eventX.id)
      expect(res.body).not.toContain(a.seller.id)
    }
    // Naming seller A's list does not help: it is none of B's, answered like a list that does not exist.
    const withListOfA = await gateOfB.post('/redeem', { code: ticketOfA!.identifier, list_ids: [listX] })
    const withNoList = await gateOfB.post('/redeem', { code: ticketOfA!.identifier, list_ids: [randomUUID()] })
    expectError(withListOfA, 404, 'not_found')
    expectError(withNoList, 404, 'not_found')
    expect(withListOfA.json().details).toEqual(withNoList.json().details)

    // And the ticket is still unused for its own seller's gates.
    const gateOfA = scanner(ctx.app, (await pairedDevice(ctx.app, adm, a.seller.id)).headers)
    expect((await gateOfA.post('/redeem', { code: ticketOfA!.identifier, list_ids: [listX] })).json()).toMatchObject({ status: 'ok' })
  })
})
