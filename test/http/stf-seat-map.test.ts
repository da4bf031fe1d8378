import { gunzipSync } from 'node:zlib'
import { eq, sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { events } from '../../src/domain/catalog/events.table.js'
import { seatingPlanSeats, seatingPlans } from '../../src/domain/seating/seating.table.js'
import { buildTestApp, useTestApp } from '../build-app.js'
import { createTestEvent, dayFromToday } from '../factories/catalog.js'
import { insertSignedInCustomer } from '../factories/orders.js'
import { createTestPlan, XML_FORBIDDEN } from '../factories/seating.js'
import { createTestAffiliate, createTestSeller, useTwoSellers, type TestSeller } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { eventually } from '../support/smtp-sink.js'
import { createStaff } from '../support/staff.js'
import { elementsOf, parseXml, type XmlElement } from '../support/xml-document.js'

/**
 * The storefront's seat map (docs/seating.md): every seat of a date, free, taken or blocked, as JSON
 * and as SVG, cached like the catalogue. The cache here keeps answers for a minute, so that only
 * a notice, never their age, can end one, unless a test says otherwise.
 */
const ctx = useTestApp({ env: { CATALOGUE_CACHE_MS: '60000' } })
const [a, b] = useTwoSellers(ctx)
let adm: AdmClient

beforeAll(async () => {
  adm = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.catalog.read', 'adm.catalog.write'] })).auth)
})

type Headers = Record<string, string>
type MapSeat = { id: string; zone: string; row: string; number: string; category: string; inventory_id: string; status: string }

const get = (app: FastifyInstance, url: string, headers: Headers) => app.inject({ method: 'GET', url, headers })
const statusesOf = (seats: MapSeat[]) => Object.fromEntries(seats.map((seat) => [seat.id, seat.status]))
/** Each seat's `data-status` in an SVG map. */
const svgStatuses = (svg: string) =>
  Object.fromEntries([...svg.matchAll(/<circle id="seat-([^"]+)" data-seat="[^"]+" data-status="(\w+)"/g)].map((m) => [m[1]!, m[2]!]))
const hold = async (app: FastifyInstance, headers: Headers, inventoryId: string, seats: string[]) => {
  const res = await app.inject({ method: 'POST', url: '/stf/v1/baskets', headers, payload: { items: [{ inventory_id: inventoryId, seats }] } })
  expect(res.statusCode, res.body).toBe(201)
  return res.json() as { id: string }
}

/** The map's seats' titles and its legend's texts, read by an XML parser that found the document well-formed. */
function readMap(svg: string) {
  const { errors, root } = parseXml(svg)
  expect(errors).toEqual([])
  const all = [...elementsOf(root!)]
  const legend = all.find((element) => element.attributes.class === 'legend')!
  return {
    root: root!,
    titles: all.filter((element) => element.name === 'title').map((title) => title.text),
    legend: [...elementsOf(legend)].filter((element) => element.name === 'text').map((text: XmlElement) => text.text),
  }
}

/** A published event with two seated inventories on one date (rows A and B of one plan: two categories). */
async function seatedEvent(seller: TestSeller, date = dayFromToday(7)) {
  const plan = await createTestPlan(ctx.app, seller.seller.id, [
    { category: 'Plateia', seats: 4 },
    { category: 'Balcão', seats: 3 },
  ])
  const event = await createTestEvent(ctx.app, seller.seller.id)
  const inventories: Record<string, string> = {}
  for (const category of ['Plateia', 'Balcão']) {
    const res = await adm.post(`/events/${event.id}/inventories`, { date, name: category, price: 5000, seating: { plan_id: plan.id, category } })
    expect(res.statusCode, res.body).toBe(201)
    inventories[category] = res.json().id
  }
  return { plan, event, date, plateia: inventories.Plateia!, balcao: inventories.Balcão! }
}

describe('GET /stf/v1/events/{id}/seats', () => {
  it('lists every seat of the date with its inventory, free, taken (held or sold) or blocked', async () => {
    const { plan, event, date, plateia, balcao } = await seatedEvent(a)
    const customer = await insertSignedInCustomer(ctx.app, a)
    const sold = await hold(ctx.app, customer.headers, plateia, ['A1'])
    const checkout = await ctx.app.inject({
      method: 'POST',
      url: `/stf/v1/baskets/${sold.id}/checkout`,
      headers: customer.headers,
      payload: { payment_method: 'pix' },
    })
    expect(checkout.statusCode, checkout.body).toBe(201)
    await hold(ctx.app, a.auth, plateia, ['A2'])
    expect((await adm.post(`/inventories/${balcao}/seats/block`, { seats: ['B3'], blocked: true })).statusCode).toBe(200)

    const res = await get(ctx.app, `/stf/v1/events/${event.id}/seats?date=${date}`, a.auth)
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json()
    expect(body).toMatchObject({ event_id: event.id, date, plan_id: plan.id })
    expect(body.seats[0]).toEqual({ id: 'A1', zone: 'Plateia', row: 'A', number: '1', category: 'Plateia', inventory_id: plateia, status: 'taken' })
    expect(body.seats.map((seat: MapSeat) => seat.id)).toEqual(['A1', 'A2', 'A3', 'A4', 'B1', 'B2', 'B3'])
    expect(statusesOf(body.seats)).toEqual({ A1: 'taken', A2: 'taken', A3: 'free', A4: 'free', B1: 'free', B2: 'free', B3: 'blocked' })
    expect(body.seats.find((seat: MapSeat) => seat.id === 'B1').inventory_id).toBe(balcao)
    // The storefront never learns who holds a seat.
    expect(res.body).not.toContain(sold.id)
    expect(res.body).not.toContain('basket')
  })

  it('takes the one date with seats when none is named, and asks for one when there are several', async () => {
    const { event, date } = await seatedEvent(a)
    const res = await get(ctx.app, `/stf/v1/events/${event.id}/seats`, a.auth)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().date).toBe(date)
    const plan = await createTestPlan(ctx.app, a.seller.id, [{ category: 'Plateia', seats: 2 }])
    const later = await adm.post(`/events/${event.id}/inventories`, {
      date: dayFromToday(8),
      name: 'Later',
      price: 100,
      seating: { plan_id: plan.id, category: 'Plateia' },
    })
    expect(later.statusCode, later.body).toBe(201)
    const ambiguous = await get(ctx.app, `/stf/v1/events/${event.id}/seats.svg`, a.auth)
    expect(ambiguous.statusCode).toBe(400)
    expect(ambiguous.json()).toMatchObject({ code: 'validation_error', details: [{ path: 'querystring.date' }] })
    const other = await get(ctx.app, `/stf/v1/events/${event.id}/seats?date=${dayFromToday(8)}`, a.auth)
    expect(other.json()).toMatchObject({ plan_id: plan.id, date: dayFromToday(8) })
    expect(other.json().seats).toHaveLength(2)
  })

  it('answers 404 for a date without seats, an unseated event, a draft and another seller’s event', async () => {
    const { event } = await seatedEvent(a)
    expect((await get(ctx.app, `/stf/v1/events/${event.id}/seats?date=${dayFromToday(30)}`, a.auth)).statusCode).toBe(404)
    expect((await get(ctx.app, `/stf/v1/events/${event.id}/seats`, b.auth)).statusCode).toBe(404)
    expect((await get(ctx.app, `/stf/v1/events/${event.id}/seats.svg`, b.auth)).statusCode).toBe(404)
    const unseated = await createTestEvent(ctx.app, a.seller.id)
    expect((await get(ctx.app, `/stf/v1/events/${unseated.id}/seats`, a.auth)).json().code).toBe('not_found')
    const draft = await seatedEvent(a)
    await ctx.app.db.update(events).set({ status: 'draft' }).where(eq(events.id, draft.event.id))
    expect((await get(ctx.app, `/stf/v1/events/${draft.event.id}/seats`, a.auth)).statusCode).toBe(404)
    expect((await get(ctx.app, `/stf/v1/events/${event.id}/seats?date=not-a-date`, a.auth)).statusCode).toBe(400)
  })

  it('shows an affiliate only its events', async () => {
    const mine = await seatedEvent(a)
    const other = await seatedEvent(a)
    await createTestAffiliate(ctx.app, a.seller.id, { code: 'SEATS1', eventIds: [mine.event.id] })
    const affiliate = { ...a.auth, 'x-affiliate-code': 'SEATS1' }
    expect((await get(ctx.app, `/stf/v1/events/${mine.event.id}/seats`, affiliate)).statusCode).toBe(200)
    expect((await get(ctx.app, `/stf/v1/events/${other.event.id}/seats`, affiliate)).statusCode).toBe(404)
    expect((await get(ctx.app, `/stf/v1/events/${other.event.id}/seats.svg`, affiliate)).statusCode).toBe(404)
    expect((await get(ctx.app, `/stf/v1/events/${other.event.id}/seats`, a.auth)).statusCode).toBe(200)
  })
})

describe('GET /stf/v1/events/{id}/seats.svg', () => {
  it('draws each seat with its state, rings the highlighted ones, and is an SVG document', async () => {
    const { event, plateia, balcao } = await seatedEvent(a)
    await hold(ctx.app, a.auth, plateia, ['A3'])
    expect((await adm.post(`/inventories/${balcao}/seats/block`, { seats: ['B1'], blocked: true })).statusCode).toBe(200)
    const res = await get(ctx.app, `/stf/v1/events/${event.id}/seats.svg?highlight=A1,A4,nope`, a.auth)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers['content-type']).toBe('image/svg+xml')
    expect(res.body.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true)
    expect(svgStatuses(res.body)).toEqual({ A1: 'free', A2: 'free', A3: 'taken', A4: 'free', B1: 'blocked', B2: 'free', B3: 'free' })
    const ringed = [...res.body.matchAll(/<circle class="highlight" data-seat="([^"]+)"/g)].map((m) => m[1])
    expect(ringed).toEqual(['A1', 'A4'])
    expect((await get(ctx.app, `/stf/v1/events/${event.id}/seats.svg?highlight=${Array(101).fill('A1').join(',')}`, a.auth)).statusCode).toBe(400)
  })
})

describe('the texts of seats.svg', () => {
  it('are well-formed XML whatever a plan stored before its texts were checked holds', async () => {
    // Every character XML 1.0 forbids that a database text can hold (all but NUL), and markup.
    const forbidden = XML_FORBIDDEN.slice(1).join('')
    const category = `Plateia\u000B<&>`
    // Written straight into the tables, as a plan uploaded before the upload refused such texts.
    const plan = await createTestPlan(ctx.app, a.seller.id, [{ category, seats: 3 }])
    await ctx.app.db
      .update(seatingPlanSeats)
      .set({
        seatId: sql`${seatingPlanSeats.seatId} || ${forbidden}`,
        zone: `Zona${forbidden}"'`,
        row: `A${forbidden}]]>`,
        number: sql`${seatingPlanSeats.number} || ${`\u000B${forbidden}`}`,
      })
      .where(eq(seatingPlanSeats.planId, plan.id))
    await ctx.app.db
      .update(seatingPlans)
      .set({ categories: [{ name: category, color: `#aa0000${forbidden}"/>`, seats: 3 }] })
      .where(eq(seatingPlans.id, plan.id))
    const event = await createTestEvent(ctx.app, a.seller.id)
    const inventory = await adm.post(`/events/${event.id}/inventories`, {
      date: dayFromToday(7),
      name: 'Plateia',
      price: 5000,
      seating: { plan_id: plan.id, category },
    })
    expect(inventory.statusCode, inventory.body).toBe(201)
    await hold(ctx.app, a.auth, inventory.json().id, [`A2${forbidden}`])

    const res = await get(ctx.app, `/stf/v1/events/${event.id}/seats.svg?highlight=${encodeURIComponent(`A1${forbidden}`)}`, a.auth)
    expect(res.statusCode, res.body).toBe(200)
    const map = readMap(res.body)
    // Each text is drawn, what XML cannot carry replaced: controls by spaces, noncharacters by U+FFFD.
    const shown = (text: string) => [...text].map((c) => (c < ' ' ? ' ' : c >= '\uFFFE' ? '\uFFFD' : c)).join('')
    expect(map.titles).toEqual([1, 2, 3].map((n) => shown(`Zona${forbidden}"', fila A${forbidden}]]>, assento ${n}\u000B${forbidden}`)))
    expect(map.legend).toEqual([shown(category), 'Ocupado'])
    expect(svgStatuses(res.body)).toEqual({ [shown(`A1${forbidden}`)]: 'free', [shown(`A2${forbidden}`)]: 'taken', [shown(`A3${forbidden}`)]: 'free' })
    expect(res.body.match(/class="highlight"/g)).toHaveLength(1)
  })

  it('speak the seller’s language, one per map: pt-BR by default, or en', async () => {
    const english = await createTestSeller(ctx.app, { settings: { locale: 'en' } })
    for (const [seller, lang, words, others] of [
      [a, 'pt-BR', ['fila', 'assento', 'Ocupado', 'Bloqueado'], /\b(row|seat|Taken|Blocked)\b/],
      [english, 'en', ['row', 'seat', 'Taken', 'Blocked'], /\b(fila|assento|Ocupado|Bloqueado)\b/],
    ] as const) {
      const { event, plateia, balcao } = await seatedEvent(seller)
      await hold(ctx.app, seller.auth, plateia, ['A1'])
      expect((await adm.post(`/inventories/${balcao}/seats/block`, { seats: ['B1'], blocked: true })).statusCode).toBe(200)
      const res = await get(ctx.app, `/stf/v1/events/${event.id}/seats.svg`, seller.auth)
      expect(res.statusCode, res.body).toBe(200)
      const map = readMap(res.body)
      expect(map.root.attributes['xml:lang']).toBe(lang)
      expect(map.titles[0]).toBe(`Plateia, ${words[0]} A, ${words[1]} 1`)
      expect(map.legend).toEqual(['Plateia', 'Balcão', words[2], words[3]])
      for (const text of [...map.titles, ...map.legend]) expect(text).not.toMatch(others)
    }
  })
})

describe('the seat map’s cache', () => {
  it('answers with an ETag and 304 to If-None-Match, compressed as the client accepts', async () => {
    const { event } = await seatedEvent(a)
    for (const url of [`/stf/v1/events/${event.id}/seats`, `/stf/v1/events/${event.id}/seats.svg?highlight=A1`]) {
      const first = await get(ctx.app, url, a.auth)
      expect(first.statusCode, url).toBe(200)
      const etag = first.headers.etag as string
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/)
      expect(first.headers['cache-control']).toBe('private, no-cache')
      expect(first.headers.vary).toContain('accept-encoding')
      const again = await get(ctx.app, url, a.auth)
      expect(again.body).toBe(first.body)
      expect(again.headers['content-type']).toBe(first.headers['content-type'])
      const revalidated = await get(ctx.app, url, { ...a.auth, 'if-none-match': etag })
      expect(revalidated.statusCode).toBe(304)
      expect(revalidated.body).toBe('')
      // A compressed answer is the same document; kept apart from the plain one.
      for (let i = 0; i < 2; i++) {
        const gzipped = await ctx.app.inject({ method: 'GET', url, headers: { ...a.auth, 'accept-encoding': 'gzip' } })
        expect(gzipped.headers['content-encoding']).toBe('gzip')
        expect(gunzipSync(gzipped.rawPayload).toString()).toBe(first.body)
      }
    }
  })

  it('shows a block at once and a hold within the cache’s age', async () => {
    const { event, plateia } = await seatedEvent(a)
    const url = `/stf/v1/events/${event.id}/seats`
    const seatA1 = async (app: FastifyInstance) => statusesOf((await get(app, url, a.auth)).json().seats).A1
    expect(await seatA1(ctx.app)).toBe('free')
    // A block is announced at commit: the cached answer ends although it is a minute young.
    expect((await adm.post(`/inventories/${plateia}/seats/block`, { seats: ['A1'], blocked: true })).statusCode).toBe(200)
    await eventually(async () => (await seatA1(ctx.app)) === 'blocked')
    expect((await adm.post(`/inventories/${plateia}/seats/block`, { seats: ['A1'], blocked: false })).statusCode).toBe(200)
    await eventually(async () => (await seatA1(ctx.app)) === 'free')

    // A hold is not announced: an app keeping answers 100 ms shows it once its answer is that old.
    const quick = await buildTestApp({ env: { CATALOGUE_CACHE_MS: '100' } })
    onTestFinished(() => quick.close())
    expect(await seatA1(quick)).toBe('free')
    await hold(quick, a.auth, plateia, ['A1'])
    await eventually(async () => (await seatA1(quick)) === 'taken')
  })
})
