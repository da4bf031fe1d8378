import { eq, sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { baskets } from '../../src/domain/baskets/baskets.table.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory, dayFromToday } from '../factories/catalog.js'
import { createTestAffiliate, createTestSeller, useTwoSellers } from '../factories/sellers.js'

const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx)

const get = (url: string, headers: Record<string, string>) => ctx.app.inject({ method: 'GET', url, headers })
const titles = (body: { data: { title: string }[] }) => body.data.map((e) => e.title)

describe('GET /stf/v1/events', () => {
  it('lists only published events of the calling seller, with pagination meta', async () => {
    const seller = await createTestSeller(ctx.app)
    for (const n of [1, 2, 3]) await createTestEvent(ctx.app, seller.seller.id, { title: `Show ${n}` })
    await createTestEvent(ctx.app, seller.seller.id, { title: 'Draft show', status: 'draft' })
    await createTestEvent(ctx.app, seller.seller.id, { title: 'Cancelled show', status: 'cancelled' })
    await createTestEvent(ctx.app, b.seller.id, { title: 'Show of B' })

    const first = await get('/stf/v1/events?limit=2', seller.auth)
    expect(first.statusCode).toBe(200)
    expect(first.json().meta).toEqual({ count: 2, limit: 2, page: 1, total: 3 })
    const second = await get('/stf/v1/events?limit=2&page=2', seller.auth)
    expect(second.json().meta).toEqual({ count: 1, limit: 2, page: 2, total: 3 })
    expect([...titles(first.json()), ...titles(second.json())].sort()).toEqual(['Show 1', 'Show 2', 'Show 3'])
  })

  it('answers the SellerEvent shape with the first image and a null price without inventories', async () => {
    const seller = await createTestSeller(ctx.app)
    const image = { id: crypto.randomUUID(), name: 'cover', credits: 'Ana', mime_type: 'image/jpeg', url: 'https://img.example.com/1.jpg' }
    const second = { ...image, id: crypto.randomUUID(), name: 'back' }
    const event = await createTestEvent(ctx.app, seller.seller.id, { title: 'Pictured', images: [image, second], integrationId: 'ext-1' })
    await createTestEvent(ctx.app, seller.seller.id, { title: 'Plain' })
    const body = (await get('/stf/v1/events', seller.auth)).json()
    expect(body.data.find((e: { title: string }) => e.title === 'Pictured')).toEqual({
      id: event.id,
      title: 'Pictured',
      slug: event.slug,
      description: 'An event',
      status: 'published',
      integration_id: 'ext-1',
      updated_at: event.updatedAt.toISOString(),
      image,
      price: null,
      first_date: null,
      last_date: null,
      venue: null,
    })
    expect(body.data.find((e: { title: string }) => e.title === 'Plain')).toMatchObject({ image: null, integration_id: null, price: null })
  })

  it('shows cancelled or finished events only when asked, and never drafts', async () => {
    const seller = await createTestSeller(ctx.app)
    await createTestEvent(ctx.app, seller.seller.id, { title: 'Live' })
    await createTestEvent(ctx.app, seller.seller.id, { title: 'Off', status: 'cancelled' })
    await createTestEvent(ctx.app, seller.seller.id, { title: 'Over', status: 'finished' })
    await createTestEvent(ctx.app, seller.seller.id, { title: 'Secret', status: 'draft' })
    expect(titles((await get('/stf/v1/events?status=cancelled', seller.auth)).json())).toEqual(['Off'])
    expect(titles((await get('/stf/v1/events?status=finished', seller.auth)).json())).toEqual(['Over'])
    const draft = await get('/stf/v1/events?status=draft', seller.auth)
    expect(draft.statusCode).toBe(400)
    expect(draft.json().code).toBe('validation_error')
  })

  it('searches titles case-insensitively, with % _ and \\ matching themselves', async () => {
    const seller = await createTestSeller(ctx.app)
    for (const title of ['100% Rock', '1000 Rock', 'a_b night', 'axb night', 'back\\slash', 'backslash', 'Jazz Festival']) {
      await createTestEvent(ctx.app, seller.seller.id, { title })
    }
    const search = async (q: string) => titles((await get(`/stf/v1/events?q=${encodeURIComponent(q)}`, seller.auth)).json()).sort()
    expect(await search('jazz')).toEqual(['Jazz Festival'])
    expect(await search('ROCK')).toEqual(['100% Rock', '1000 Rock'])
    expect(await search('0%')).toEqual(['100% Rock'])
    expect(await search('a_b')).toEqual(['a_b night'])
    expect(await search('k\\s')).toEqual(['back\\slash'])
    expect(await search('%')).toEqual(['100% Rock'])
    expect(await search('_')).toEqual(['a_b night'])
  })

  it('filters on inventory dates with date_from and date_to', async () => {
    const seller = await createTestSeller(ctx.app)
    const early = await createTestEvent(ctx.app, seller.seller.id, { title: 'Early' })
    const late = await createTestEvent(ctx.app, seller.seller.id, { title: 'Late' })
    await createTestEvent(ctx.app, seller.seller.id, { title: 'Undated' })
    await createTestInventory(ctx.app, early, { date: '2031-03-01' })
    await createTestInventory(ctx.app, late, { date: '2031-06-01' })
    const list = async (query: string) => titles((await get(`/stf/v1/events?${query}`, seller.auth)).json())
    expect(await list('date_from=2031-03-01&date_to=2031-03-01')).toEqual(['Early'])
    expect(await list('date_from=2031-04-01')).toEqual(['Late'])
    expect(await list('date_to=2031-05-31')).toEqual(['Early'])
    // Without a window: soonest first, events without dates last.
    expect(await list('')).toEqual(['Early', 'Late', 'Undated'])
    for (const bad of ['date_from=2031-06-02&date_to=2031-06-01', 'date_from=01/02/2031', 'date_to=2031-13-01']) {
      const res = await get(`/stf/v1/events?${bad}`, seller.auth)
      expect(res.statusCode, bad).toBe(400)
      expect(res.json().code).toBe('validation_error')
    }
  })

  it('prices an event at its lowest price with tickets left, as "a partir de R$ 50,00"', async () => {
    const seller = await createTestSeller(ctx.app)
    const event = await createTestEvent(ctx.app, seller.seller.id, { title: 'Priced' })
    await createTestInventory(ctx.app, event, { price: 2500, capacity: 10, sold: 10 })
    const held = await createTestInventory(ctx.app, event, { price: 4000, capacity: 2 })
    await createTestInventory(ctx.app, event, { price: 5000, capacity: 10, sold: 3 })
    await createTestInventory(ctx.app, event, { price: 123456789, capacity: 10 })
    const price = async () => (await get('/stf/v1/events', seller.auth)).json().data[0].price
    expect(await price()).toEqual({ amount: 4000, label: 'a partir de R$ 40,00' })

    // Tickets held by an open basket are not left; an expired basket holds nothing.
    const basket = await ctx.app.inject({
      method: 'POST',
      url: '/stf/v1/baskets',
      headers: seller.auth,
      payload: { items: [{ inventory_id: held.id, quantity: 2 }] },
    })
    expect(basket.statusCode).toBe(201)
    expect(await price()).toEqual({ amount: 5000, label: 'a partir de R$ 50,00' })
    await ctx.app.db.update(baskets).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(baskets.id, basket.json().id))
    expect(await price()).toEqual({ amount: 4000, label: 'a partir de R$ 40,00' })
  })

  it('answers the total on a page past the end, and counts only events in the date window', async () => {
    const seller = await createTestSeller(ctx.app)
    for (const [title, date] of [
      ['In 1', '2032-01-10'],
      ['In 2', '2032-01-20'],
      ['Out', '2032-05-01'],
    ] as const) {
      await createTestInventory(ctx.app, await createTestEvent(ctx.app, seller.seller.id, { title }), { date })
    }
    const past = await get('/stf/v1/events?limit=2&page=9', seller.auth)
    expect(past.statusCode).toBe(200)
    expect(past.json()).toEqual({ data: [], meta: { count: 0, limit: 2, page: 9, total: 3 } })
    const windowed = (await get('/stf/v1/events?limit=1&date_from=2032-01-01&date_to=2032-01-31', seller.auth)).json()
    expect(windowed.meta).toEqual({ count: 1, limit: 1, page: 1, total: 2 })
    expect(titles(windowed)).toEqual(['In 1'])
  })

  it('prices an event from the inventories in the date window only', async () => {
    const seller = await createTestSeller(ctx.app)
    const event = await createTestEvent(ctx.app, seller.seller.id, { title: 'Two dates' })
    await createTestInventory(ctx.app, event, { date: '2032-02-01', price: 1000 })
    await createTestInventory(ctx.app, event, { date: '2032-03-01', price: 3000 })
    const price = async (query: string) => (await get(`/stf/v1/events?${query}`, seller.auth)).json().data[0].price.amount
    expect(await price('')).toBe(1000)
    expect(await price('date_from=2032-02-15')).toBe(3000)
    expect(await price('date_to=2032-02-15')).toBe(1000)
  })

  it('prices an event with nothing left at null', async () => {
    const seller = await createTestSeller(ctx.app)
    const event = await createTestEvent(ctx.app, seller.seller.id)
    await createTestInventory(ctx.app, event, { capacity: 5, sold: 5 })
    expect((await get('/stf/v1/events', seller.auth)).json().data[0].price).toBeNull()
  })

  it('shows an affiliate only the events it may sell', async () => {
    const seller = await createTestSeller(ctx.app)
    const mine = await createTestEvent(ctx.app, seller.seller.id, { title: 'Mine' })
    await createTestEvent(ctx.app, seller.seller.id, { title: 'Not mine' })
    await createTestAffiliate(ctx.app, seller.seller.id, { code: 'NARROW', eventIds: [mine.id] })
    await createTestAffiliate(ctx.app, seller.seller.id, { code: 'WIDE' })
    expect(titles((await get('/stf/v1/events', { ...seller.auth, 'x-affiliate-code': 'NARROW' })).json())).toEqual(['Mine'])
    expect(titles((await get('/stf/v1/events', { ...seller.auth, 'x-affiliate-code': 'WIDE' })).json()).sort()).toEqual(['Mine', 'Not mine'])
    await createTestAffiliate(ctx.app, seller.seller.id, { code: 'NONE', eventIds: [] })
    expect((await get('/stf/v1/events', { ...seller.auth, 'x-affiliate-code': 'NONE' })).json().meta.total).toBe(0)
  })

  it('refuses calls without valid Basic credentials', async () => {
    expect((await get('/stf/v1/events', {})).statusCode).toBe(401)
  })
})

describe('GET /stf/v1/events/{id_or_slug}', () => {
  it('answers the EventDetail by id and by slug', async () => {
    const attribute = { id: crypto.randomUUID(), name: 'age', scope: 'event', text: 'Classificação', type: 'string', value: '18' }
    const event = await createTestEvent(ctx.app, a.seller.id, { title: 'Detailed', slug: 'detailed', source: 'sympla', attributes: [attribute] })
    const expected = {
      id: event.id,
      title: 'Detailed',
      slug: 'detailed',
      description: 'An event',
      status: 'published',
      source: 'sympla',
      integration_id: null,
      updated_at: event.updatedAt.toISOString(),
      attributes: [attribute],
      images: [],
      venue: null,
    }
    for (const key of [event.id, 'detailed', event.id.toUpperCase()]) {
      const res = await get(`/stf/v1/events/${key}`, a.auth)
      expect(res.statusCode, key).toBe(200)
      expect(res.json()).toEqual(expected)
    }
  })

  it("answers 404 for drafts, unknown slugs, another seller's event and events outside the affiliate's", async () => {
    const draft = await createTestEvent(ctx.app, a.seller.id, { status: 'draft' })
    const other = await createTestEvent(ctx.app, b.seller.id, { slug: 'b-only' })
    const outside = await createTestEvent(ctx.app, a.seller.id)
    await createTestAffiliate(ctx.app, a.seller.id, { code: 'ONEEVENT', eventIds: [draft.id] })
    for (const [url, headers] of [
      [`/stf/v1/events/${draft.id}`, a.auth],
      [`/stf/v1/events/${draft.slug}`, a.auth],
      ['/stf/v1/events/no-such-slug', a.auth],
      [`/stf/v1/events/${other.id}`, a.auth],
      ['/stf/v1/events/b-only', a.auth],
      [`/stf/v1/events/${outside.id}`, { ...a.auth, 'x-affiliate-code': 'ONEEVENT' }],
    ] as const) {
      const res = await get(url, headers)
      expect(res.statusCode, url).toBe(404)
      expect(res.json().code).toBe('not_found')
    }
  })

  it('still shows a cancelled event, with its status', async () => {
    const event = await createTestEvent(ctx.app, a.seller.id, { status: 'cancelled' })
    const res = await get(`/stf/v1/events/${event.slug}`, a.auth)
    expect(res.statusCode).toBe(200)
    expect(res.json().status).toBe('cancelled')
  })
})

describe('GET /stf/v1/events/{id}/availability', () => {
  it('answers per date and inventory what is left, today to +90 days by default', async () => {
    const event = await createTestEvent(ctx.app, a.seller.id)
    const soon = await createTestInventory(ctx.app, event, {
      date: dayFromToday(5),
      name: 'Pista',
      price: 8000,
      capacity: 10,
      sold: 3,
      variants: [{ name: 'Meia', description: 'Half price', type: 'half' }],
    })
    const sameDay = await createTestInventory(ctx.app, event, { date: dayFromToday(5), name: 'Camarote', price: 20000, capacity: 4 })
    const later = await createTestInventory(ctx.app, event, { date: dayFromToday(90), name: 'Pista', capacity: 1 })
    await createTestInventory(ctx.app, event, { date: dayFromToday(91) })
    await createTestInventory(ctx.app, event, { date: dayFromToday(-1) })
    await ctx.app.inject({ method: 'POST', url: '/stf/v1/baskets', headers: a.auth, payload: { items: [{ inventory_id: soon.id, quantity: 2 }] } })

    const res = await get(`/stf/v1/events/${event.id}/availability`, a.auth)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      data: [
        {
          date: dayFromToday(5),
          inventories: [
            {
              id: soon.id,
              name: 'Pista',
              available: 5,
              price: 8000,
              time: null,
              doors_time: null,
              variants: [{ name: 'Meia', description: 'Half price', type: 'half', price: 8000 }],
              seating: null,
            },
            { id: sameDay.id, name: 'Camarote', available: 4, price: 20000, time: null, doors_time: null, variants: [], seating: null },
          ],
        },
        {
          date: dayFromToday(90),
          inventories: [{ id: later.id, name: 'Pista', available: 1, price: 5000, time: null, doors_time: null, variants: [], seating: null }],
        },
      ],
    })
  })

  it('takes from and to, and refuses an inverted or longer than 366-day range', async () => {
    const event = await createTestEvent(ctx.app, a.seller.id)
    await createTestInventory(ctx.app, event, { date: '2032-01-10' })
    await createTestInventory(ctx.app, event, { date: '2032-02-10' })
    const dates = async (query: string) =>
      (await get(`/stf/v1/events/${event.id}/availability?${query}`, a.auth)).json().data.map((d: { date: string }) => d.date)
    expect(await dates('from=2032-01-10&to=2032-01-10')).toEqual(['2032-01-10'])
    expect(await dates('from=2032-01-11&to=2032-12-31')).toEqual(['2032-02-10'])
    expect(await dates('from=2032-01-01')).toEqual(['2032-01-10', '2032-02-10'])
    expect((await get(`/stf/v1/events/${event.id}/availability?from=2032-01-01&to=2033-01-01`, a.auth)).statusCode).toBe(200)
    for (const bad of ['from=2032-01-01&to=2033-01-02', 'from=2032-02-01&to=2032-01-31', 'from=tomorrow']) {
      const res = await get(`/stf/v1/events/${event.id}/availability?${bad}`, a.auth)
      expect(res.statusCode, bad).toBe(400)
      expect(res.json().code).toBe('validation_error')
    }
  })

  it('never answers less than 0 available, and 0 for an event no longer on sale', async () => {
    const event = await createTestEvent(ctx.app, a.seller.id)
    const full = await createTestInventory(ctx.app, event, { date: dayFromToday(3), capacity: 5, sold: 5 })
    const res = await get(`/stf/v1/events/${event.id}/availability`, a.auth)
    expect(res.json().data[0].inventories[0]).toMatchObject({ id: full.id, available: 0 })

    const cancelled = await createTestEvent(ctx.app, a.seller.id, { status: 'cancelled' })
    await createTestInventory(ctx.app, cancelled, { date: dayFromToday(3), capacity: 5 })
    const off = await get(`/stf/v1/events/${cancelled.id}/availability`, a.auth)
    expect(off.statusCode).toBe(200)
    expect(off.json().data[0].inventories[0].available).toBe(0)
  })

  it("answers 404 for a draft or another seller's event and 400 for a malformed id", async () => {
    const draft = await createTestEvent(ctx.app, a.seller.id, { status: 'draft' })
    const other = await createTestEvent(ctx.app, b.seller.id)
    for (const id of [draft.id, other.id]) {
      const res = await get(`/stf/v1/events/${id}/availability`, a.auth)
      expect(res.statusCode).toBe(404)
      expect(res.json().code).toBe('not_found')
    }
    const malformed = await get('/stf/v1/events/not-a-uuid/availability', a.auth)
    expect(malformed.statusCode).toBe(400)
    expect(malformed.json().code).toBe('validation_error')
  })
})
