import { sql } from 'drizzle-orm'
import { decodeProtectedHeader, type JSONWebKeySet } from 'jose'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { signTicketCode } from '../../src/domain/checkin/ticket-codes.js'
import { legacyKeyPair, openSeed, thumbprint } from '../../src/domain/checkin/ticket-key-material.js'
import { buildTestApp, useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { useTwoSellers } from '../factories/sellers.js'
import type { AdmClient } from '../support/adm-client.js'
import { buyTickets, checkinAdmin, feedPage, pairedDevice, scanner, type TestOrder } from '../support/checkin.js'
import { expectError } from '../support/customer-auth.js'
import { usesPostgres } from '../support/database.js'
import { buildSecondApp } from '../support/second-app.js'
import { createStaff } from '../support/staff.js'
import { admClient } from '../support/adm-client.js'
import { verifyTicketCode } from '../support/verify-ticket-code.js'

/** docs/door.md: per-seller signing keys, stored sealed, rotated and retired. */
const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx)
let adm: AdmClient
let gate: ReturnType<typeof scanner>
let inventoryId: string
let bInventoryId: string
let listId: string

const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date())

beforeAll(async () => {
  adm = await checkinAdmin(ctx.app)
  const event = await createTestEvent(ctx.app, a.seller.id)
  inventoryId = (await createTestInventory(ctx.app, event, { date: today })).id
  bInventoryId = (await createTestInventory(ctx.app, await createTestEvent(ctx.app, b.seller.id), { date: today })).id
  listId = (await adm.post(`/events/${event.id}/checkin-lists`, { name: 'Main gate' })).json().id
  gate = scanner(ctx.app, (await pairedDevice(ctx.app, adm, a.seller.id)).headers)
})

type Published = { keys: { kid: string; kty: 'OKP'; crv: 'Ed25519'; x: string; active: boolean }[] }
const keysOf = async () => (await gate.get('/keys')).json() as Published
const kidOf = (code: string) => decodeProtectedHeader(code).kid as string
const redeem = async (code: string) => (await gate.post('/redeem', { code, list_ids: [listId] })).json()
const readOrder = async (order: TestOrder) => (await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}`, headers: a.auth })).json() as TestOrder

/** The list's feed after `cursor`, once it shows every one of `expected`: the identifiers shown and the cursor to go on from. */
async function feedAfter(cursor: string | undefined, expected: readonly string[]) {
  const page = await feedPage(gate, listId, cursor, expected)
  return { identifiers: new Set(page.data.map((t) => t.identifier)), cursor: page.next_cursor }
}

describe('rotate and retire', () => {
  it('rotate: new tickets are signed by the new key, old codes stay and verify, /chk/v1/keys shows both with their active flags', async () => {
    const before = await buyTickets(ctx.app, a, [{ inventory_id: inventoryId, quantity: 2 }])
    const [first] = (await keysOf()).keys
    expect(kidOf(before.tickets[0]!.code)).toBe(first!.kid)

    const rotated = await adm.post(`/sellers/${a.seller.id}/ticket-keys/rotate`)
    expect(rotated.statusCode).toBe(201)
    expect(rotated.json()).toMatchObject({ kid: expect.stringMatching(/^[\w-]{8}$/), active: true, legacy: false, retired_at: null })
    const newKid = rotated.json().kid as string

    const after = await buyTickets(ctx.app, a, [{ inventory_id: inventoryId, quantity: 1 }])
    expect(kidOf(after.tickets[0]!.code)).toBe(newKid)
    expect((await readOrder(before)).tickets.map((t) => t.code)).toEqual(before.tickets.map((t) => t.code))

    const keys = await keysOf()
    expect(keys.keys.map((k) => [k.kid, k.active])).toEqual([
      [first!.kid, false],
      [newKid, true],
    ])
    for (const ticket of [...before.tickets, ...after.tickets])
      expect(await verifyTicketCode(ticket.code, keys as JSONWebKeySet)).toMatchObject({ tid: ticket.identifier })
    expect(await redeem(before.tickets[0]!.code)).toMatchObject({ status: 'ok' })
    expect(await redeem(after.tickets[0]!.code)).toMatchObject({ status: 'ok' })

    const listed = await adm.get(`/sellers/${a.seller.id}/ticket-keys`)
    expect(listed.statusCode).toBe(200)
    expect(listed.json()).toMatchObject({
      data: [
        { kid: first!.kid, active: false },
        { kid: newKid, active: true },
      ],
      meta: { total: 2 },
    })
  })

  it('retire: the valid tickets of the key get new codes from the active key, the old codes are refused, the feed returns them', async () => {
    const oldKey = (await keysOf()).keys.find((k) => !k.active)!
    const { data } = (await adm.get(`/sellers/${a.seller.id}/ticket-keys`)).json() as { data: { kid: string; active: boolean }[] }
    const activeKid = data.find((k) => k.active)!.kid
    // Tickets of the old key: one order with a ticket voided since; the feed's cursor before the retire.
    const orders = (await ctx.app.db.execute(sql`select o.id from orders o where o.seller_id = ${a.seller.id} order by o.created_at`)).rows as { id: string }[]
    const signedByOld = (await Promise.all(orders.map((o) => readOrder({ id: o.id } as TestOrder)))).filter((o) => kidOf(o.tickets[0]!.code) === oldKey.kid)
    const order = signedByOld[0]!
    const [kept, voided] = order.tickets
    expect((await adm.post(`/orders/${order.id}/tickets/${voided!.identifier}/void`)).statusCode).toBe(200)
    const { cursor } = await feedAfter(undefined, [kept!.identifier, voided!.identifier])

    expectError(await adm.post(`/sellers/${a.seller.id}/ticket-keys/${activeKid}/retire`), 409, 'ticket_key_active')
    const retired = await adm.post(`/sellers/${a.seller.id}/ticket-keys/${oldKey.kid}/retire`)
    expect(retired.statusCode).toBe(200)
    expect(retired.json()).toMatchObject({ kid: oldKey.kid, active: false, retired_at: expect.any(String), resigned_tickets: expect.any(Number) })
    expect(retired.json().resigned_tickets).toBeGreaterThanOrEqual(1)

    const reread = await readOrder(order)
    const renewed = reread.tickets.find((t) => t.identifier === kept!.identifier)!
    expect(renewed.code).not.toBe(kept!.code)
    expect(kidOf(renewed.code)).toBe(activeKid)
    expect(await redeem(kept!.code)).toMatchObject({ status: 'refused', reason: 'invalid' })
    // Verified (it entered before, under its old code: once in is in).
    expect(await redeem(renewed.code)).toMatchObject({ reason: 'already_redeemed', ticket: { identifier: kept!.identifier } })
    expect((await keysOf()).keys.map((k) => k.kid)).toEqual([activeKid])
    await expect(verifyTicketCode(kept!.code, (await keysOf()) as JSONWebKeySet)).rejects.toThrow()

    const feed = await feedAfter(cursor, [kept!.identifier])
    expect(feed.identifiers.has(kept!.identifier)).toBe(true)
    expect(feed.identifiers.has(voided!.identifier)).toBe(false)

    // Again: answered as it is, nothing re-signed.
    expect((await adm.post(`/sellers/${a.seller.id}/ticket-keys/${oldKey.kid}/retire`)).json()).toMatchObject({ kid: oldKey.kid, resigned_tickets: 0 })
  })

  it('answers 404 for an unknown seller or kid, and for another seller’s kid under this seller; 403 without the permission', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000'
    expectError(await adm.get(`/sellers/${unknown}/ticket-keys`), 404, 'not_found')
    expectError(await adm.post(`/sellers/${unknown}/ticket-keys/rotate`), 404, 'not_found')
    expectError(await adm.post(`/sellers/${a.seller.id}/ticket-keys/NOSUCHKD/retire`), 404, 'not_found')
    await buyTickets(ctx.app, b, [{ inventory_id: bInventoryId, quantity: 1 }])
    const bKid = ((await adm.get(`/sellers/${b.seller.id}/ticket-keys`)).json().data as { kid: string }[])[0]!.kid
    expectError(await adm.post(`/sellers/${a.seller.id}/ticket-keys/${bKid}/retire`), 404, 'not_found')

    const nobody = admClient(ctx.app, (await createStaff(ctx.app, { roles: [] })).auth)
    expectError(await nobody.get(`/sellers/${a.seller.id}/ticket-keys`), 403, 'forbidden')
    expectError(await nobody.post(`/sellers/${a.seller.id}/ticket-keys/rotate`), 403, 'forbidden')
  })

  it('keeps every private seed sealed: no column holds it in the clear', async () => {
    const rows = (await ctx.app.db.execute(sql`select id, row_to_json(k)::text as raw, sealed_seed from ticket_signing_keys k`)).rows as {
      id: string
      raw: string
      sealed_seed: string
    }[]
    expect(rows.length).toBeGreaterThan(0)
    for (const row of rows) {
      const seed = openSeed(ctx.app.secrets.ticketKeys, row.id, row.sealed_seed)
      for (const encoding of ['hex', 'base64', 'base64url'] as const) expect(row.raw).not.toContain(seed.toString(encoding).slice(0, 16))
    }
  })
})

describe('tickets issued before keys were stored', () => {
  it('keep their very codes (the legacy key, imported), scan, and get short codes once the legacy key is retired', async () => {
    const order = await buyTickets(ctx.app, b, [{ inventory_id: bInventoryId, quantity: 1 }])
    // As before the upgrade: tickets without a key, and a seller without keys.
    await ctx.app.db.execute(sql`update tickets t set signing_key_id = null from orders o where o.id = t.order_id and o.seller_id = ${b.seller.id}`)
    await ctx.app.db.execute(sql`delete from ticket_signing_keys where seller_id = ${b.seller.id}`)
    const fresh = await buildTestApp()
    try {
      const legacy = legacyKeyPair(fresh.secrets.ticketCodes, b.seller.id)
      const ticket = order.tickets[0]!
      const [item] = (await fresh.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}`, headers: b.auth })).json().items
      const before = signTicketCode(
        { kid: thumbprint(legacy.x), legacy: true, privateKey: legacy.privateKey },
        { tid: ticket.identifier, sid: b.seller.id, eid: item.event_id, inv: bInventoryId, d: item.date, v: null },
      )
      const reread = (await fresh.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}`, headers: b.auth })).json() as TestOrder
      expect(reread.tickets[0]!.code).toBe(before)

      const bAdm = await checkinAdmin(fresh)
      const bGate = scanner(fresh, (await pairedDevice(fresh, bAdm, b.seller.id)).headers)
      const keys = (await bGate.get('/keys')).json() as { keys: { kid: string; active: boolean; x: string }[] }
      expect(keys.keys).toContainEqual({ kid: thumbprint(legacy.x), kty: 'OKP', crv: 'Ed25519', x: legacy.x, active: false })
      expect(await verifyTicketCode(before, keys as JSONWebKeySet)).toMatchObject({ tid: ticket.identifier, sid: b.seller.id })

      expect((await bAdm.post(`/sellers/${b.seller.id}/ticket-keys/${thumbprint(legacy.x)}/retire`)).json()).toMatchObject({
        legacy: true,
        resigned_tickets: 2, // b's two tickets: this one, and the one bought above
      })
      const after = (await fresh.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}`, headers: b.auth })).json() as TestOrder
      expect(after.tickets[0]!.code.length).toBeLessThanOrEqual(280)
      expect(kidOf(after.tickets[0]!.code)).toHaveLength(8)
    } finally {
      await fresh.close()
    }
  })
})

describe.runIf(usesPostgres())('another replica', () => {
  it('refuses a retired key’s codes promptly, and verifies a rotated key’s new codes', async () => {
    const replica = await buildSecondApp()
    try {
      const order = await buyTickets(ctx.app, a, [{ inventory_id: inventoryId, quantity: 1 }])
      const code = order.tickets[0]!.code
      expect(await replica.app.ticketCodes.verify(a.seller.id, code)).toMatchObject({ tid: order.tickets[0]!.identifier })
      const rotated = (await adm.post(`/sellers/${a.seller.id}/ticket-keys/rotate`)).json()
      const fresh = await buyTickets(ctx.app, a, [{ inventory_id: inventoryId, quantity: 1 }])
      expect(kidOf(fresh.tickets[0]!.code)).toBe(rotated.kid)
      await vi.waitFor(async () => expect(await replica.app.ticketCodes.verify(a.seller.id, fresh.tickets[0]!.code)).not.toBeNull(), { timeout: 4000 })
      await adm.post(`/sellers/${a.seller.id}/ticket-keys/${kidOf(code)}/retire`)
      await vi.waitFor(async () => expect(await replica.app.ticketCodes.verify(a.seller.id, code)).toBeNull(), { timeout: 4000 })
    } finally {
      await replica.close()
    }
  })
})
