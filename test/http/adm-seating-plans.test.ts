import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { and, eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { gridPlan } from '../../src/domain/seating/grid-plan.js'
import { forbiddenLabels, XML_FORBIDDEN } from '../factories/seating.js'
import { findPlanSeats, findSellerPlan } from '../../src/domain/seating/seating-plans.repo.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { createTestAffiliate, useTwoSellers } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { createStaff } from '../support/staff.js'

const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx)
let adm: AdmClient
let auth: Record<string, string>

beforeAll(async () => {
  auth = (await createStaff(ctx.app, { permissions: ['adm.catalog.read', 'adm.catalog.write'] })).auth
  adm = admClient(ctx.app, auth)
})

const theatre = () => JSON.parse(readFileSync(new URL('../fixtures/seating/pretix-theatre.json', import.meta.url), 'utf8')) as Record<string, unknown>
const small = () => gridPlan({ rows: 3, seatsPerRow: 6, aisleAfter: 3, categories: [{ name: 'Front', color: '#aa0000', rows: [0] }, { name: 'Back' }] })

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const postPlan = async (sellerId: string, plan: object, name = 'Hall') => {
  const res = await adm.post(`/sellers/${sellerId}/seating-plans`, { name, plan })
  expect(res.statusCode, res.body).toBe(201)
  return res.json()
}

/** A raw body to the create route, as a client that sends bytes would. */
const postRaw = (sellerId: string, payload: string) =>
  ctx.app.inject({
    method: 'POST',
    url: `/adm/v1/sellers/${sellerId}/seating-plans`,
    headers: { ...auth, 'content-type': 'application/json' },
    payload,
  })

const listSeatingPlansOf = async (sellerId: string) => (await adm.get(`/sellers/${sellerId}/seating-plans?limit=100`)).json().data as { name: string }[]

const detailsOf = (res: { statusCode: number; json(): { code: string; details?: { path: string }[] } }) => {
  expect(res.statusCode).toBe(400)
  expect(res.json().code).toBe('validation_error')
  return res.json().details?.map((d) => d.path)
}

describe('POST /adm/v1/sellers/{id}/seating-plans', () => {
  it('stores the plan and one row per seat, and answers the plan with its categories', async () => {
    const res = await adm.post(`/sellers/${a.seller.id}/seating-plans`, { name: 'Small hall', plan: small() })
    expect(res.statusCode).toBe(201)
    expect(res.json()).toEqual({
      id: expect.stringMatching(UUID),
      seller_id: a.seller.id,
      name: 'Small hall',
      categories: [
        { name: 'Front', color: '#aa0000', seats: 6 },
        { name: 'Back', color: expect.stringMatching(/^#[0-9a-f]{6}$/), seats: 12 },
      ],
      seats: 18,
      created_at: expect.any(String),
    })
    const id = res.json().id
    const seats = await findPlanSeats(ctx.app.db, id)
    expect(seats).toHaveLength(18)
    expect(seats[0]).toMatchObject({
      planId: id,
      seatId: 'Main-1-1',
      zoneIndex: 0,
      zone: 'Main',
      rowIndex: 0,
      row: '1',
      number: '1',
      category: 'Front',
      ord: 0,
      run: 0,
      rowSeats: 6,
    })
    expect(seats.filter((s) => s.rowIndex === 1).map((s) => s.run)).toEqual([0, 0, 0, 1, 1, 1])
    expect((await findPlanSeats(ctx.app.db, id, 'Front')).map((s) => s.seatId)).toEqual([
      'Main-1-1',
      'Main-1-2',
      'Main-1-3',
      'Main-1-4',
      'Main-1-5',
      'Main-1-6',
    ])
    const [audit] = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, id), eq(auditLog.action, 'adm.seating_plan.created')))
    expect(audit).toMatchObject({ actorType: 'staff', sellerId: a.seller.id, data: { name: 'Small hall', seats: 18 } })
  })

  it('takes a plan exported from pretix as it is, and answers it back unchanged', async () => {
    const created = await postPlan(a.seller.id, theatre(), 'Teatro')
    expect(created.categories).toEqual([
      { name: 'Plateia', color: '#2f7ed8', seats: 40 },
      { name: 'Balcão', color: '#d84f2f', seats: 16 },
    ])
    const res = await adm.get(`/seating-plans/${created.id}`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ ...created, plan: theatre() })
  })

  it('names a seat of an unknown category, a seat_guid used twice, and a plan without seats', async () => {
    const plan = small()
    plan.zones[0]!.rows[2]!.seats[4]!.category = 'VIP'
    plan.zones[0]!.rows[1]!.seats[0]!.seat_guid = 'Main-1-1'
    expect(detailsOf(await adm.post(`/sellers/${a.seller.id}/seating-plans`, { name: 'Bad', plan }))).toEqual([
      'plan.zones.0.rows.1.seats.0.seat_guid',
      'plan.zones.0.rows.2.seats.4.category',
    ])
    expect(detailsOf(await adm.post(`/sellers/${a.seller.id}/seating-plans`, { name: 'Empty', plan: { name: 'E', categories: [], zones: [] } }))).toEqual([
      'plan.zones',
    ])
  })

  it('refuses every text of the plan carrying a character XML 1.0 forbids, naming its path', async () => {
    // The characters XML 1.0 forbids but NUL: each in a seat number of its own.
    const forbidden = XML_FORBIDDEN.slice(1)
    const numbered = gridPlan({ rows: 3, seatsPerRow: 12 })
    const seats = numbered.zones[0]!.rows.flatMap((row) => row.seats)
    forbidden.forEach((c, i) => {
      seats[i]!.seat_number = `${i + 1}${c}`
    })
    const paths = forbidden.map((_, i) => `plan.zones.0.rows.${Math.floor(i / 12)}.seats.${i % 12}.seat_number`)
    expect(detailsOf(await adm.post(`/sellers/${a.seller.id}/seating-plans`, { name: 'Bad', plan: numbered }))).toEqual(paths)

    // Each text of the plan, with a vertical tab (what Word inserts for Shift+Enter).
    const cases: [string, (plan: ReturnType<typeof small>) => void][] = [
      ['plan.name', (plan) => (plan.name = 'Sala\u000B1')],
      ['plan.categories.1.name', (plan) => (plan.categories[1]!.name = 'Back\u000Brow')],
      ['plan.categories.0.color', (plan) => (plan.categories[0]!.color = '#aa0000\u000B')],
      ['plan.zones.0.name', (plan) => (plan.zones[0]!.name = 'Main\u000Bfloor')],
      ['plan.zones.0.rows.2.row_number', (plan) => (plan.zones[0]!.rows[2]!.row_number = '3\u000B')],
      ['plan.zones.0.rows.1.seats.4.seat_number', (plan) => (plan.zones[0]!.rows[1]!.seats[4]!.seat_number = '5\u000B')],
      ['plan.zones.0.rows.0.seats.2.seat_guid', (plan) => (plan.zones[0]!.rows[0]!.seats[2]!.seat_guid = 'Main-1-3\u000B')],
      ['plan.zones.0.rows.2.seats.5.category', (plan) => (plan.zones[0]!.rows[2]!.seats[5]!.category = 'Back\uFFFF')],
    ]
    for (const [path, spoil] of cases) {
      const plan = small()
      spoil(plan)
      const res = await adm.post(`/sellers/${a.seller.id}/seating-plans`, { name: 'Bad', plan })
      expect(detailsOf(res), path).toEqual([path])
      expect(res.json().details[0].message).toContain('XML')
    }
    expect(detailsOf(await adm.post(`/sellers/${a.seller.id}/seating-plans`, { name: 'Sala\u000B1', plan: small() }))).toEqual(['name'])
    // NUL and a lone surrogate, which no text of any request may carry, are refused with their path too.
    const raw = JSON.stringify({ name: 'Bad', plan: small() })
    expect(detailsOf(await postRaw(a.seller.id, raw.replace('"seat_number":"4"', '"seat_number":"4\\u0000"')))).toEqual([
      'plan.zones.0.rows.0.seats.3.seat_number',
    ])
    expect(detailsOf(await postRaw(a.seller.id, raw.replace('"row_number":"2"', '"row_number":"2\\ud800"')))).toEqual(['plan.zones.0.rows.1.row_number'])
    expect((await listSeatingPlansOf(a.seller.id)).filter((plan) => plan.name === 'Bad' || plan.name.startsWith('Sala'))).toEqual([])

    // Tabs, line breaks, U+FFFD and an emoji are characters like any other.
    const fine = small()
    fine.name = 'Sala\t1\r\n\uFFFD 🎭'
    fine.zones[0]!.rows[0]!.seats[0]!.seat_number = '1\n🎭'
    expect((await adm.post(`/sellers/${a.seller.id}/seating-plans`, { name: 'Fine 🎭', plan: fine })).statusCode).toBe(201)
  })

  it('refuses a plan of the wrong shape, and unknown fields beside name and plan', async () => {
    const plan = small() as unknown as { zones: { rows: { seats: Record<string, unknown>[] }[] }[] }
    delete plan.zones[0]!.rows[0]!.seats[1]!.position
    expect(detailsOf(await adm.post(`/sellers/${a.seller.id}/seating-plans`, { name: 'Bad', plan }))).toEqual(['plan.zones.0.rows.0.seats.1.position'])
    expect(detailsOf(await adm.post(`/sellers/${a.seller.id}/seating-plans`, { name: 'Bad', plan: small(), extra: 1 }))).toEqual(['extra'])
  })

  it('refuses more than 100,000 seats', async () => {
    const res = await postRaw(a.seller.id, JSON.stringify({ name: 'Huge', plan: gridPlan({ rows: 101, seatsPerRow: 991 }) }))
    expect(detailsOf(res)).toEqual(['plan.zones'])
  })

  it('stores 100,000 seats in one request', async () => {
    const body = JSON.stringify({ name: 'Stadium', plan: gridPlan({ rows: 250, seatsPerRow: 400, aisleAfter: 200 }) })
    const started = performance.now()
    const res = await postRaw(a.seller.id, body)
    const ms = performance.now() - started
    console.info(`100,000 seats (${(body.length / 2 ** 20).toFixed(1)} MiB) stored in ${ms.toFixed(0)} ms`)
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json().seats).toBe(100_000)
    expect(await findPlanSeats(ctx.app.db, res.json().id, 'Standard')).toHaveLength(100_000)
  })

  it('refuses 10 MB of junk, not JSON or JSON of another shape, without asking the database', async () => {
    const transaction = vi.spyOn(ctx.app.db, 'transaction')
    try {
      const notJson = await postRaw(a.seller.id, `{"name":"x","plan":${'['.repeat(10)}${'x'.repeat(10 * 1024 * 1024)}`)
      expect(notJson.statusCode).toBe(400)
      expect(notJson.json().code).toBe('invalid_json')
      const seats = Array.from({ length: 90_000 }, (_, i) => ({ seat_guid: i, seat_number: null, position: 'here', category: [], note: 'x'.repeat(64) }))
      const wrongShape = JSON.stringify({
        name: 'x',
        plan: { name: 'x', categories: [], zones: [{ position: { x: 0, y: 0 }, rows: [{ row_number: '1', seats }] }] },
      })
      expect(wrongShape.length).toBeGreaterThan(10 * 1024 * 1024)
      const started = performance.now()
      const res = await postRaw(a.seller.id, wrongShape)
      console.info(`${(wrongShape.length / 2 ** 20).toFixed(1)} MiB of seats of the wrong shape refused in ${(performance.now() - started).toFixed(0)} ms`)
      const details = detailsOf(res)
      expect(details).toHaveLength(50)
      expect(details?.slice(0, 4)).toEqual(['seat_guid', 'seat_number', 'position', 'category'].map((f) => `plan.zones.0.rows.0.seats.0.${f}`))
      const unknownCategories = gridPlan({ rows: 300, seatsPerRow: 300 })
      unknownCategories.categories = [{ name: 'Other' }]
      expect(detailsOf(await postRaw(a.seller.id, JSON.stringify({ name: 'x', plan: unknownCategories })))).toHaveLength(50)
      expect(transaction).not.toHaveBeenCalled()
    } finally {
      transaction.mockRestore()
    }
  })

  it('refuses 100,000 seats whose labels carry every character XML forbids by their first 50 paths, without asking the database', async () => {
    const body = JSON.stringify({ name: 'Stadium', plan: forbiddenLabels() })
    const transaction = vi.spyOn(ctx.app.db, 'transaction')
    try {
      const started = performance.now()
      const res = await postRaw(a.seller.id, body)
      console.info(`100,000 seats with forbidden labels (${(body.length / 2 ** 20).toFixed(1)} MiB) refused in ${(performance.now() - started).toFixed(0)} ms`)
      expect(detailsOf(res)).toEqual(
        [...Array(25).keys()].flatMap((s) => [`plan.zones.0.rows.0.seats.${s}.seat_guid`, `plan.zones.0.rows.0.seats.${s}.seat_number`]),
      )
      expect(transaction).not.toHaveBeenCalled()
    } finally {
      transaction.mockRestore()
    }
  })

  it('answers a body over 16 MiB with 413 in the envelope', async () => {
    const res = await postRaw(a.seller.id, JSON.stringify({ name: 'x', plan: { name: 'x'.repeat(16 * 1024 * 1024), categories: [], zones: [] } }))
    expect(res.statusCode).toBe(413)
    expect(res.json()).toMatchObject({ code: 'payload_too_large', trace_id: res.headers['x-trace-id'] })
  })

  it('answers 404 for a seller that does not exist', async () => {
    expect((await adm.post(`/sellers/${randomUUID()}/seating-plans`, { name: 'X', plan: small() })).statusCode).toBe(404)
  })
})

describe('GET /adm/v1/sellers/{id}/seating-plans', () => {
  it("pages a seller's plans, newest first, without their documents", async () => {
    const first = await postPlan(b.seller.id, small(), 'First')
    const second = await postPlan(b.seller.id, small(), 'Second')
    const res = await adm.get(`/sellers/${b.seller.id}/seating-plans?limit=1`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ data: [second], meta: { count: 1, limit: 1, page: 1, total: 2 } })
    expect((await adm.get(`/sellers/${b.seller.id}/seating-plans?page=2&limit=1`)).json().data).toEqual([first])
    expect((await adm.get(`/sellers/${randomUUID()}/seating-plans`)).statusCode).toBe(404)
  })
})

describe('GET and DELETE /adm/v1/seating-plans/{id}', () => {
  it('answers 404 for a plan that does not exist, and 400 for a malformed id', async () => {
    expect((await adm.get(`/seating-plans/${randomUUID()}`)).json().code).toBe('not_found')
    expect((await adm.delete(`/seating-plans/${randomUUID()}`)).statusCode).toBe(404)
    expect((await adm.get('/seating-plans/nope')).statusCode).toBe(400)
  })

  it('deletes an unused plan with its seats, and records it', async () => {
    const plan = await postPlan(a.seller.id, small())
    const res = await adm.delete(`/seating-plans/${plan.id}`)
    expect(res.statusCode).toBe(204)
    expect(res.body).toBe('')
    expect((await adm.get(`/seating-plans/${plan.id}`)).statusCode).toBe(404)
    expect(await findPlanSeats(ctx.app.db, plan.id)).toEqual([])
    const [audit] = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, plan.id), eq(auditLog.action, 'adm.seating_plan.deleted')))
    expect(audit).toMatchObject({ actorType: 'staff', sellerId: a.seller.id })
  })

  it('refuses to delete a plan an inventory uses: 409 seating_plan_in_use', async () => {
    const plan = await postPlan(a.seller.id, small())
    const event = await createTestEvent(ctx.app, a.seller.id)
    await createTestInventory(ctx.app, event, { seatingPlanId: plan.id, seatingCategory: 'Back', capacity: 12 })
    const res = await adm.delete(`/seating-plans/${plan.id}`)
    expect(res.statusCode).toBe(409)
    expect(res.json().code).toBe('seating_plan_in_use')
    expect((await adm.get(`/seating-plans/${plan.id}`)).statusCode).toBe(200)
  })
})

describe('findSellerPlan', () => {
  it("finds a seller's own plan only", async () => {
    const plan = await postPlan(a.seller.id, small())
    expect((await findSellerPlan(ctx.app.db, a.seller.id, plan.id))?.name).toBe('Hall')
    expect(await findSellerPlan(ctx.app.db, b.seller.id, plan.id)).toBeUndefined()
  })
})

describe('GET /stf/v1/seating-plans/{id}', () => {
  const get = (id: string, headers: Record<string, string>) => ctx.app.inject({ method: 'GET', url: `/stf/v1/seating-plans/${id}`, headers })

  it('answers a plan an inventory of a published event uses, with its document', async () => {
    const plan = await postPlan(a.seller.id, theatre(), 'Teatro')
    const event = await createTestEvent(ctx.app, a.seller.id)
    await createTestInventory(ctx.app, event, { seatingPlanId: plan.id, seatingCategory: 'Plateia', capacity: 40 })
    const res = await get(plan.id, a.auth)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ ...plan, plan: theatre() })
  })

  it("answers 404 for an unused plan, a draft's plan, another seller's plan and one outside the affiliate's events", async () => {
    const unused = await postPlan(a.seller.id, small())
    expect((await get(unused.id, a.auth)).statusCode).toBe(404)

    const draftPlan = await postPlan(a.seller.id, small())
    const draft = await createTestEvent(ctx.app, a.seller.id, { status: 'draft' })
    await createTestInventory(ctx.app, draft, { seatingPlanId: draftPlan.id, seatingCategory: 'Back', capacity: 12 })
    expect((await get(draftPlan.id, a.auth)).statusCode).toBe(404)

    const used = await postPlan(a.seller.id, small())
    const event = await createTestEvent(ctx.app, a.seller.id)
    await createTestInventory(ctx.app, event, { seatingPlanId: used.id, seatingCategory: 'Back', capacity: 12 })
    expect((await get(used.id, a.auth)).statusCode).toBe(200)
    const other = await get(used.id, b.auth)
    expect(other.statusCode).toBe(404)
    expect(other.json().code).toBe('not_found')

    const elsewhere = await createTestEvent(ctx.app, a.seller.id)
    await createTestAffiliate(ctx.app, a.seller.id, { code: 'SEATSNARROW', eventIds: [elsewhere.id] })
    expect((await get(used.id, { ...a.auth, 'x-affiliate-code': 'SEATSNARROW' })).statusCode).toBe(404)
    await createTestAffiliate(ctx.app, a.seller.id, { code: 'SEATSWIDE', eventIds: [event.id] })
    expect((await get(used.id, { ...a.auth, 'x-affiliate-code': 'SEATSWIDE' })).statusCode).toBe(200)
  })
})
