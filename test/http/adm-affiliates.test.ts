import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { affiliates } from '../../src/domain/sellers/affiliates.table.js'
import type { EventRow } from '../../src/domain/catalog/events.repo.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent } from '../factories/catalog.js'
import { createTestSeller, type TestSeller, useTwoSellers } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { createStaff } from '../support/staff.js'

const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx)
let adm: AdmClient
let eventsOfA: EventRow[]
let eventOfB: EventRow

beforeAll(async () => {
  adm = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.sellers.read', 'adm.sellers.write'] })).auth)
  eventsOfA = [await createTestEvent(ctx.app, a.seller.id), await createTestEvent(ctx.app, a.seller.id), await createTestEvent(ctx.app, a.seller.id)]
  eventOfB = await createTestEvent(ctx.app, b.seller.id)
})

const asAffiliate = (seller: TestSeller, code: string) =>
  ctx.app.inject({ method: 'GET', url: '/stf/v1/seller', headers: { ...seller.auth, 'x-affiliate-code': code } })

const code = () => `AF${randomUUID().slice(0, 8).toUpperCase()}`

describe('POST /adm/v1/sellers/{id}/affiliates', () => {
  it('creates an affiliate that may sell every event, and whose code the storefront accepts at once', async () => {
    const c = code()
    expect((await asAffiliate(a, c)).json().code).toBe('invalid_affiliate')
    const res = await adm.post(`/sellers/${a.seller.id}/affiliates`, { code: c, name: 'Blog do Show' })
    expect(res.statusCode).toBe(201)
    expect(res.json()).toEqual({
      id: expect.any(String),
      seller_id: a.seller.id,
      code: c,
      name: 'Blog do Show',
      active: true,
      event_ids: null,
      commission_rate: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    })
    const profile = await asAffiliate(a, c.toLowerCase())
    expect(profile.statusCode).toBe(200)
    expect(profile.json().affiliate).toEqual({ code: c, name: 'Blog do Show' })
    const [audit] = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, res.json().id), eq(auditLog.action, 'adm.affiliate.created')))
    expect(audit).toMatchObject({ actorType: 'staff', sellerId: a.seller.id })
  })

  it('takes a commission_rate of 0..1 with at most 5 decimals, kept exact and changed by PUT; 400 outside', async () => {
    const res = await adm.post(`/sellers/${a.seller.id}/affiliates`, { code: code(), name: 'Comissionado', commission_rate: 0.125 })
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json().commission_rate).toBe(0.125)
    const changed = await adm.put(`/affiliates/${res.json().id}`, { commission_rate: 0.07 })
    expect(changed.statusCode, changed.body).toBe(200)
    expect(changed.json().commission_rate).toBe(0.07)
    const [row] = await ctx.app.db.select().from(affiliates).where(eq(affiliates.id, res.json().id))
    expect(row!.commissionRate).toBe('0.07000')
    for (const rate of [-0.01, 1.5, 0.123456, '0.1']) {
      const refused = await adm.post(`/sellers/${a.seller.id}/affiliates`, { code: code(), name: 'X', commission_rate: rate })
      expect(refused.statusCode, String(rate)).toBe(400)
      expect(refused.json().details[0].path).toBe('commission_rate')
      expect((await adm.put(`/affiliates/${res.json().id}`, { commission_rate: rate })).statusCode).toBe(400)
    }
    expect((await adm.post(`/sellers/${a.seller.id}/affiliates`, { code: code(), name: 'Whole', commission_rate: 1 })).json().commission_rate).toBe(1)
  })

  it('limits an affiliate to events of its seller, without repeats', async () => {
    const ids = [eventsOfA[1]!.id, eventsOfA[0]!.id, eventsOfA[1]!.id]
    const res = await adm.post(`/sellers/${a.seller.id}/affiliates`, { code: code(), name: 'Limited', event_ids: ids })
    expect(res.statusCode).toBe(201)
    expect([...res.json().event_ids].sort()).toEqual([eventsOfA[0]!.id, eventsOfA[1]!.id].sort())
    const resolved = await ctx.app.sellerAuth.resolveAffiliate(a.seller.id, res.json().code)
    expect([...(resolved?.eventIds ?? [])].sort()).toEqual([eventsOfA[0]!.id, eventsOfA[1]!.id].sort())
  })

  it("refuses event_ids naming another seller's event or no event with 400 validation_error, exactly alike", async () => {
    const foreign = await adm.post(`/sellers/${a.seller.id}/affiliates`, { code: code(), name: 'X', event_ids: [eventsOfA[0]!.id, eventOfB.id] })
    const missing = await adm.post(`/sellers/${a.seller.id}/affiliates`, { code: code(), name: 'X', event_ids: [eventsOfA[0]!.id, randomUUID()] })
    for (const res of [foreign, missing]) {
      expect(res.statusCode).toBe(400)
      expect(res.json()).toMatchObject({ code: 'validation_error', details: [{ path: 'event_ids.1', message: 'is not an event of this seller' }] })
    }
    const listed = (await adm.get(`/sellers/${a.seller.id}/affiliates?limit=100`)).json().data.map((x: { name: string }) => x.name)
    expect(listed).not.toContain('X')
  })

  it('refuses malformed codes, names and event ids, an empty scope and unknown fields', async () => {
    for (const body of [
      { code: '', name: 'X' },
      { code: 'has space', name: 'X' },
      { code: 'x'.repeat(65), name: 'X' },
      { code: '-dash', name: 'X' },
      { code: code(), name: '' },
      { code: code(), name: 'X', event_ids: [] },
      { code: code(), name: 'X', event_ids: ['nope'] },
      { code: code(), name: 'X', active: false },
    ]) {
      const res = await adm.post(`/sellers/${a.seller.id}/affiliates`, body)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(res.json().code).toBe('validation_error')
    }
  })

  it('answers 409 already_exists for a code the seller has in any case, and lets another seller use it', async () => {
    const c = code()
    expect((await adm.post(`/sellers/${a.seller.id}/affiliates`, { code: c, name: 'One' })).statusCode).toBe(201)
    const clash = await adm.post(`/sellers/${a.seller.id}/affiliates`, { code: c.toLowerCase(), name: 'Two' })
    expect(clash.statusCode).toBe(409)
    expect(clash.json().code).toBe('already_exists')
    expect((await adm.post(`/sellers/${b.seller.id}/affiliates`, { code: c, name: 'Other seller' })).statusCode).toBe(201)
  })

  it('answers 409 to all but one of concurrent creations of the same code', async () => {
    const c = code()
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => adm.post(`/sellers/${a.seller.id}/affiliates`, { code: i % 2 ? c : c.toLowerCase(), name: `R${i}` })),
    )
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409])
  })

  it('answers 404 for an unknown seller', async () => {
    expect((await adm.post(`/sellers/${randomUUID()}/affiliates`, { code: code(), name: 'X' })).statusCode).toBe(404)
    expect((await adm.get(`/sellers/${randomUUID()}/affiliates`)).statusCode).toBe(404)
  })
})

describe('GET /adm/v1/sellers/{id}/affiliates', () => {
  it("lists the seller's affiliates by code, inactive ones included, and none of another seller's", async () => {
    const c = await createTestSeller(ctx.app)
    for (const [cc, name] of [
      ['BRAVO', 'B'],
      ['alpha', 'A'],
      ['Charlie', 'C'],
    ]) {
      await adm.post(`/sellers/${c.seller.id}/affiliates`, { code: cc, name })
    }
    await adm.post(`/sellers/${b.seller.id}/affiliates`, { code: 'AAAA', name: 'not listed' })
    const first = await adm.get(`/sellers/${c.seller.id}/affiliates?limit=2`)
    expect(first.statusCode).toBe(200)
    expect(first.json().data.map((x: { code: string }) => x.code)).toEqual(['alpha', 'BRAVO'])
    expect(first.json().meta).toEqual({ count: 2, limit: 2, page: 1, total: 3 })
    const bravo = first.json().data[1]
    await adm.delete(`/affiliates/${bravo.id}`)
    const all = (await adm.get(`/sellers/${c.seller.id}/affiliates`)).json().data
    expect(all.map((x: { code: string; active: boolean }) => [x.code, x.active])).toEqual([
      ['alpha', true],
      ['BRAVO', false],
      ['Charlie', true],
    ])
  })
})

describe('PUT /adm/v1/affiliates/{id}', () => {
  it('renames, deactivates and reactivates an affiliate, each seen by the storefront on its next request', async () => {
    const created = (await adm.post(`/sellers/${a.seller.id}/affiliates`, { code: code(), name: 'Before' })).json()
    expect((await asAffiliate(a, created.code)).json().affiliate.name).toBe('Before')
    const renamed = await adm.put(`/affiliates/${created.id}`, { name: 'After' })
    expect(renamed.statusCode).toBe(200)
    expect(renamed.json()).toMatchObject({ name: 'After', code: created.code, active: true })
    expect((await asAffiliate(a, created.code)).json().affiliate.name).toBe('After')
    expect((await adm.put(`/affiliates/${created.id}`, { active: false })).json().active).toBe(false)
    expect((await asAffiliate(a, created.code)).json().code).toBe('invalid_affiliate')
    await adm.put(`/affiliates/${created.id}`, { active: true })
    expect((await asAffiliate(a, created.code)).statusCode).toBe(200)
  })

  it('replaces the events an affiliate may sell, or gives it all of them again with null', async () => {
    const created = (await adm.post(`/sellers/${a.seller.id}/affiliates`, { code: code(), name: 'Scoped', event_ids: [eventsOfA[0]!.id] })).json()
    expect((await ctx.app.sellerAuth.resolveAffiliate(a.seller.id, created.code))?.eventIds).toEqual([eventsOfA[0]!.id])
    const res = await adm.put(`/affiliates/${created.id}`, { event_ids: [eventsOfA[2]!.id] })
    expect(res.json().event_ids).toEqual([eventsOfA[2]!.id])
    expect((await ctx.app.sellerAuth.resolveAffiliate(a.seller.id, created.code))?.eventIds).toEqual([eventsOfA[2]!.id])
    const all = await adm.put(`/affiliates/${created.id}`, { event_ids: null })
    expect(all.json().event_ids).toBeNull()
    expect((await ctx.app.sellerAuth.resolveAffiliate(a.seller.id, created.code))?.eventIds).toBeNull()
    const audits = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, created.id), eq(auditLog.action, 'adm.affiliate.updated')))
    expect(audits).toHaveLength(2)
  })

  it("refuses another seller's event, a code change, an empty change; 404 for an unknown affiliate", async () => {
    const created = (await adm.post(`/sellers/${a.seller.id}/affiliates`, { code: code(), name: 'Guarded' })).json()
    const foreign = await adm.put(`/affiliates/${created.id}`, { event_ids: [eventOfB.id] })
    expect(foreign.statusCode).toBe(400)
    expect(foreign.json().details).toEqual([{ path: 'event_ids.0', message: 'is not an event of this seller' }])
    expect((await adm.get(`/sellers/${a.seller.id}/affiliates?limit=100`)).json().data.find((x: { id: string }) => x.id === created.id).event_ids).toBeNull()
    expect((await adm.put(`/affiliates/${created.id}`, { code: 'NEWCODE' })).statusCode).toBe(400)
    expect((await adm.put(`/affiliates/${created.id}`, {})).statusCode).toBe(400)
    expect((await adm.put(`/affiliates/${randomUUID()}`, { name: 'X' })).statusCode).toBe(404)
    expect((await adm.put('/affiliates/nope', { name: 'X' })).statusCode).toBe(400)
  })
})

describe('DELETE /adm/v1/affiliates/{id}', () => {
  it('deactivates rather than deletes: 204, the code is refused at once, the affiliate stays listed', async () => {
    const created = (await adm.post(`/sellers/${a.seller.id}/affiliates`, { code: code(), name: 'Leaving' })).json()
    expect((await asAffiliate(a, created.code)).statusCode).toBe(200)
    const res = await adm.delete(`/affiliates/${created.id}`)
    expect(res.statusCode).toBe(204)
    expect((await asAffiliate(a, created.code)).json().code).toBe('invalid_affiliate')
    const listed = (await adm.get(`/sellers/${a.seller.id}/affiliates?limit=100`)).json().data.find((x: { id: string }) => x.id === created.id)
    expect(listed.active).toBe(false)
    expect((await adm.delete(`/affiliates/${created.id}`)).statusCode).toBe(204)
    const audits = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, created.id), eq(auditLog.action, 'adm.affiliate.deactivated')))
    expect(audits).toHaveLength(1)
  })

  it('answers 404 for an unknown affiliate and 400 for a malformed id', async () => {
    expect((await adm.delete(`/affiliates/${randomUUID()}`)).statusCode).toBe(404)
    expect((await adm.delete('/affiliates/123')).statusCode).toBe(400)
  })
})
