import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory, holdTickets, sellTickets } from '../factories/catalog.js'
import { createTestSeller, useTwoSellers } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { createStaff } from '../support/staff.js'

const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx)
let adm: AdmClient

beforeAll(async () => {
  adm = admClient(ctx.app, (await createStaff(ctx.app, { permissions: ['adm.catalog.read', 'adm.catalog.write'] })).auth)
})

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const postEvent = async (sellerId: string, body: Record<string, unknown>) => {
  const res = await adm.post(`/sellers/${sellerId}/events`, body)
  expect(res.statusCode, res.body).toBe(201)
  return res.json()
}

const expect400 = (res: { statusCode: number; json(): { code: string; details?: { path: string }[] } }, path?: string) => {
  expect(res.statusCode).toBe(400)
  expect(res.json().code).toBe('validation_error')
  if (path) expect(res.json().details?.map((d) => d.path)).toContain(path)
}

describe('POST /adm/v1/sellers/{id}/events', () => {
  it('creates a draft with a slug derived from the title, and defaults for everything else', async () => {
    const res = await adm.post(`/sellers/${a.seller.id}/events`, { title: 'Festa Junina: São João!' })
    expect(res.statusCode).toBe(201)
    expect(res.json()).toEqual({
      id: expect.stringMatching(UUID),
      seller_id: a.seller.id,
      title: 'Festa Junina: São João!',
      slug: 'festa-junina-sao-joao',
      description: '',
      status: 'draft',
      source: '',
      integration_id: null,
      attributes: [],
      images: [],
      venue: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    })
    const [audit] = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, res.json().id), eq(auditLog.action, 'adm.event.created')))
    expect(audit).toMatchObject({ actorType: 'staff', sellerId: a.seller.id })
  })

  it('gives attributes and images server-generated ids', async () => {
    const event = await postEvent(a.seller.id, {
      title: 'Rock na Praça',
      description: 'Bands all night',
      status: 'published',
      source: 'ticketing-x',
      integration_id: 'X-123',
      attributes: [
        { name: 'Classificação', scope: 'event', text: '18 anos', type: 'rating', value: '18' },
        { name: 'Duração', value: '4h' },
      ],
      images: [{ name: 'Cover', credits: 'Ana', mime_type: 'image/jpeg', url: 'https://cdn.example.com/rock.jpg' }],
    })
    expect(event).toMatchObject({ status: 'published', source: 'ticketing-x', integration_id: 'X-123', description: 'Bands all night' })
    expect(event.attributes).toEqual([
      { id: expect.stringMatching(UUID), name: 'Classificação', scope: 'event', text: '18 anos', type: 'rating', value: '18' },
      { id: expect.stringMatching(UUID), name: 'Duração', scope: '', text: '', type: '', value: '4h' },
    ])
    expect(event.attributes[0].id).not.toBe(event.attributes[1].id)
    expect(event.images).toEqual([
      { id: expect.stringMatching(UUID), name: 'Cover', credits: 'Ana', mime_type: 'image/jpeg', url: 'https://cdn.example.com/rock.jpg' },
    ])
  })

  it('appends -2, -3... when the derived slug is taken, and lets another seller have the same slug', async () => {
    const slugs = []
    for (let i = 0; i < 3; i++) slugs.push((await postEvent(a.seller.id, { title: 'Noite do Samba' })).slug)
    expect(slugs).toEqual(['noite-do-samba', 'noite-do-samba-2', 'noite-do-samba-3'])
    expect((await postEvent(b.seller.id, { title: 'Noite do Samba' })).slug).toBe('noite-do-samba')
  })

  it('gives events created concurrently with the same title distinct slugs', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => adm.post(`/sellers/${a.seller.id}/events`, { title: 'Virada Cultural' })))
    expect(results.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201])
    expect(results.map((r) => r.json().slug).sort()).toEqual([
      'virada-cultural',
      'virada-cultural-2',
      'virada-cultural-3',
      'virada-cultural-4',
      'virada-cultural-5',
    ])
  })

  it('answers 409 already_exists for an explicit slug the seller already has', async () => {
    await postEvent(a.seller.id, { title: 'One', slug: 'taken-slug' })
    const res = await adm.post(`/sellers/${a.seller.id}/events`, { title: 'Two', slug: 'taken-slug' })
    expect(res.statusCode).toBe(409)
    expect(res.json().code).toBe('already_exists')
    expect((await postEvent(b.seller.id, { title: 'Two', slug: 'taken-slug' })).slug).toBe('taken-slug')
  })

  it('refuses bad slugs, statuses, images, attributes and unknown fields with 400', async () => {
    const url = `/sellers/${a.seller.id}/events`
    for (const slug of ['Upper', 'two  spaces', 'double--hyphen', '-lead', 'trail-', 'ação', 'x'.repeat(101), randomUUID()]) {
      expect400(await adm.post(url, { title: 'T', slug }), 'slug')
    }
    expect400(await adm.post(url, { title: '' }), 'title')
    expect400(await adm.post(url, { title: 'T', status: 'archived' }), 'status')
    expect400(await adm.post(url, { title: 'T', images: [{ url: 'ftp://x.example.com/a.png' }] }), 'images.0.url')
    expect400(await adm.post(url, { title: 'T', images: [{ url: 'https://x.example.com/a.png', mime_type: 'jpeg' }] }), 'images.0.mime_type')
    expect400(await adm.post(url, { title: 'T', attributes: [{ value: 'no name' }] }), 'attributes.0.name')
    expect400(await adm.post(url, { title: 'T', attributes: [{ id: randomUUID(), name: 'n' }] }), 'attributes.0.id')
    expect400(await adm.post(url, { title: 'T', seller_id: b.seller.id }))
  })

  it('answers 404 for an unknown seller', async () => {
    expect((await adm.post(`/sellers/${randomUUID()}/events`, { title: 'T' })).statusCode).toBe(404)
  })
})

describe('GET /adm/v1/sellers/{id}/events and /adm/v1/events/{id}', () => {
  it("lists a seller's events of every status, newest first, filters by status, and never shows another seller's", async () => {
    const c = await createTestSeller(ctx.app)
    const draft = await postEvent(c.seller.id, { title: 'Draft one' })
    const published = await postEvent(c.seller.id, { title: 'Published one', status: 'published' })
    const cancelled = await postEvent(c.seller.id, { title: 'Cancelled one', status: 'cancelled' })
    await createTestEvent(ctx.app, b.seller.id)
    const all = await adm.get(`/sellers/${c.seller.id}/events`)
    expect(all.statusCode).toBe(200)
    expect(all.json().data.map((e: { id: string }) => e.id)).toEqual([cancelled.id, published.id, draft.id])
    expect(all.json().meta).toEqual({ count: 3, limit: 20, page: 1, total: 3 })
    const onlyPublished = await adm.get(`/sellers/${c.seller.id}/events?status=published`)
    expect(onlyPublished.json().data.map((e: { id: string }) => e.id)).toEqual([published.id])
    expect((await adm.get(`/sellers/${c.seller.id}/events?limit=1&page=3`)).json()).toMatchObject({ data: [{ id: draft.id }], meta: { count: 1, total: 3 } })
    expect400(await adm.get(`/sellers/${c.seller.id}/events?status=gone`))
    expect((await adm.get(`/sellers/${randomUUID()}/events`)).statusCode).toBe(404)
  })

  it('answers one event of any status; 404 for an unknown id, 400 for a malformed one', async () => {
    const draft = await postEvent(a.seller.id, { title: 'Secret draft' })
    const res = await adm.get(`/events/${draft.id}`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual(draft)
    expect((await adm.get(`/events/${randomUUID()}`)).statusCode).toBe(404)
    expect400(await adm.get('/events/not-an-id'))
  })

  it("has no route that reaches another seller's event under a seller's path", async () => {
    const eventOfB = await createTestEvent(ctx.app, b.seller.id)
    for (const url of [`/sellers/${a.seller.id}/events/${eventOfB.id}`, `/sellers/${a.seller.id}/events/${eventOfB.id}/inventories`]) {
      expect((await adm.get(url)).statusCode).toBe(404)
    }
    const listed = (await adm.get(`/sellers/${a.seller.id}/events?limit=100`)).json().data.map((e: { id: string }) => e.id)
    expect(listed).not.toContain(eventOfB.id)
  })
})

describe('PUT /adm/v1/events/{id}', () => {
  it('changes the fields given; a new title keeps the slug', async () => {
    const event = await postEvent(a.seller.id, { title: 'Old title', description: 'Old' })
    const res = await adm.put(`/events/${event.id}`, { title: 'New title', status: 'published', integration_id: 'ABC' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ title: 'New title', slug: event.slug, status: 'published', description: 'Old', integration_id: 'ABC' })
    expect((await adm.put(`/events/${event.id}`, { integration_id: null })).json().integration_id).toBeNull()
    expect((await adm.put(`/events/${event.id}`, { status: 'finished' })).json().status).toBe('finished')
    const audits = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, event.id), eq(auditLog.action, 'adm.event.updated')))
    expect(audits).toHaveLength(3)
  })

  it('changes the slug when asked, 409 when the seller already has it', async () => {
    const one = await postEvent(a.seller.id, { title: 'Slug one' })
    const two = await postEvent(a.seller.id, { title: 'Slug two' })
    expect((await adm.put(`/events/${one.id}`, { slug: 'slug-renamed' })).json().slug).toBe('slug-renamed')
    const clash = await adm.put(`/events/${two.id}`, { slug: 'slug-renamed' })
    expect(clash.statusCode).toBe(409)
    expect(clash.json().code).toBe('already_exists')
    expect((await adm.get(`/events/${two.id}`)).json().slug).toBe(two.slug)
    // Its own slug again is no conflict.
    expect((await adm.put(`/events/${one.id}`, { slug: 'slug-renamed' })).statusCode).toBe(200)
  })

  it('replaces attributes and images, keeping the ids of the items named by id', async () => {
    const event = await postEvent(a.seller.id, {
      title: 'With attributes',
      attributes: [{ name: 'keep' }, { name: 'drop' }],
      images: [{ url: 'https://cdn.example.com/1.png' }],
    })
    const [keep] = event.attributes
    const res = await adm.put(`/events/${event.id}`, {
      attributes: [{ id: keep.id, name: 'kept', value: 'v' }, { name: 'added' }],
      images: [],
    })
    expect(res.statusCode).toBe(200)
    expect(res.json().attributes).toEqual([
      { id: keep.id, name: 'kept', scope: '', text: '', type: '', value: 'v' },
      { id: expect.stringMatching(UUID), name: 'added', scope: '', text: '', type: '', value: '' },
    ])
    expect(res.json().attributes[1].id).not.toBe(event.attributes[1].id)
    expect(res.json().images).toEqual([])
    expect400(await adm.put(`/events/${event.id}`, { attributes: [{ id: event.attributes[1].id, name: 'gone' }] }), 'attributes.0.id')
  })

  it('refuses an empty change, a seller change and bad values; 404 for an unknown event', async () => {
    const event = await postEvent(a.seller.id, { title: 'Guarded' })
    expect400(await adm.put(`/events/${event.id}`, {}))
    expect400(await adm.put(`/events/${event.id}`, { seller_id: b.seller.id }))
    expect400(await adm.put(`/events/${event.id}`, { status: 'deleted' }), 'status')
    expect400(await adm.put(`/events/${event.id}`, { slug: 'Bad Slug' }), 'slug')
    expect((await adm.put(`/events/${randomUUID()}`, { title: 'X' })).statusCode).toBe(404)
    expect((await adm.get(`/events/${event.id}`)).json().seller_id).toBe(a.seller.id)
  })
})

describe('inventories', () => {
  it('adds an inventory to an event, with nothing sold or held', async () => {
    const event = await createTestEvent(ctx.app, a.seller.id)
    const res = await adm.post(`/events/${event.id}/inventories`, {
      date: '2030-06-15',
      name: 'Pista',
      price: 12_000,
      capacity: 300,
      variants: [{ name: 'Inteira', description: 'Full price', type: 'full' }, { name: 'Meia' }],
    })
    expect(res.statusCode).toBe(201)
    expect(res.json()).toEqual({
      id: expect.stringMatching(UUID),
      event_id: event.id,
      seller_id: a.seller.id,
      date: '2030-06-15',
      name: 'Pista',
      price: 12_000,
      capacity: 300,
      sold: 0,
      held: 0,
      available: 300,
      variants: [
        { name: 'Inteira', description: 'Full price', type: 'full', checkin_attention: false },
        { name: 'Meia', description: '', type: '', checkin_attention: false },
      ],
      waiting_list: false,
      checkin_attention: false,
      transferable: true,
      transfer_closes_hours: 0,
      seating: null,
      time: null,
      doors_time: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    })
    const [audit] = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, res.json().id), eq(auditLog.action, 'adm.inventory.created')))
    expect(audit).toMatchObject({ actorType: 'staff', sellerId: a.seller.id })
  })

  it('refuses impossible dates, negative prices, fractional capacities and unknown fields; 404 for an unknown event', async () => {
    const event = await createTestEvent(ctx.app, a.seller.id)
    const url = `/events/${event.id}/inventories`
    const ok = { date: '2030-06-15', name: 'Pista', price: 100, capacity: 10 }
    expect400(await adm.post(url, { ...ok, date: '2030-02-30' }), 'date')
    expect400(await adm.post(url, { ...ok, date: '15/06/2030' }), 'date')
    expect400(await adm.post(url, { ...ok, price: -1 }), 'price')
    expect400(await adm.post(url, { ...ok, price: 10.5 }), 'price')
    expect400(await adm.post(url, { ...ok, capacity: 1.5 }), 'capacity')
    expect400(await adm.post(url, { ...ok, variants: [{ description: 'no name' }] }), 'variants.0.name')
    expect400(await adm.post(url, { ...ok, sold: 5 }))
    expect((await adm.post(`/events/${randomUUID()}/inventories`, ok)).statusCode).toBe(404)
  })

  it('takes whether its tickets may be transferred and until how many hours before their date (0..720), on creation and update', async () => {
    const event = await createTestEvent(ctx.app, a.seller.id)
    const url = `/events/${event.id}/inventories`
    const ok = { date: '2030-06-15', name: 'Pista', price: 100, capacity: 10 }
    const created = await adm.post(url, { ...ok, transferable: false, transfer_closes_hours: 720 })
    expect(created.statusCode, created.body).toBe(201)
    expect(created.json()).toMatchObject({ transferable: false, transfer_closes_hours: 720 })
    const id = created.json().id as string
    for (const [field, value] of [
      ['transfer_closes_hours', -1],
      ['transfer_closes_hours', 721],
      ['transfer_closes_hours', 1.5],
      ['transfer_closes_hours', '24'],
      ['transfer_closes_hours', null],
      ['transferable', 'yes'],
      ['transferable', null],
    ] as const) {
      expect400(await adm.post(url, { ...ok, [field]: value }), field)
      expect400(await adm.put(`/inventories/${id}`, { [field]: value }), field)
    }
    const changed = await adm.put(`/inventories/${id}`, { transferable: true, transfer_closes_hours: 0 })
    expect(changed.statusCode).toBe(200)
    expect(changed.json()).toMatchObject({ transferable: true, transfer_closes_hours: 0 })
    const listed = (await adm.get(url)).json().data.find((i: { id: string }) => i.id === id)
    expect(listed).toMatchObject({ transferable: true, transfer_closes_hours: 0 })
    const [audit] = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, id), eq(auditLog.action, 'adm.inventory.updated')))
    expect(audit?.data).toMatchObject({ fields: expect.arrayContaining(['transferable', 'transfer_closes_hours']) })
    // Only the field given changes.
    expect((await adm.put(`/inventories/${id}`, { transfer_closes_hours: 48 })).json()).toMatchObject({ transferable: true, transfer_closes_hours: 48 })
  })

  it("lists an event's inventories by date with sold, held by unexpired open baskets, and available", async () => {
    const event = await createTestEvent(ctx.app, a.seller.id)
    const later = await createTestInventory(ctx.app, event, { date: '2030-07-02', capacity: 10 })
    const sooner = await createTestInventory(ctx.app, event, { date: '2030-07-01', capacity: 10 })
    await sellTickets(ctx.app, sooner.id, 3)
    await holdTickets(ctx.app, a.seller.id, sooner.id, 4)
    await holdTickets(ctx.app, a.seller.id, sooner.id, 5, -60_000)
    await holdTickets(ctx.app, a.seller.id, later.id, 10)
    const res = await adm.get(`/events/${event.id}/inventories`)
    expect(res.statusCode).toBe(200)
    expect(res.json().data.map((i: Record<string, unknown>) => [i.id, i.sold, i.held, i.available])).toEqual([
      [sooner.id, 3, 4, 3],
      [later.id, 0, 10, 0],
    ])
    expect(res.json().meta).toEqual({ count: 2, limit: 20, page: 1, total: 2 })
    expect((await adm.get(`/events/${randomUUID()}/inventories`)).statusCode).toBe(404)
  })

  it('changes the fields given', async () => {
    const event = await createTestEvent(ctx.app, a.seller.id)
    const inventory = await createTestInventory(ctx.app, event)
    const res = await adm.put(`/inventories/${inventory.id}`, { name: 'Camarote', price: 30_000, date: '2031-01-01', variants: [{ name: 'VIP' }] })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({
      name: 'Camarote',
      price: 30_000,
      date: '2031-01-01',
      capacity: 100,
      variants: [{ name: 'VIP', description: '', type: '' }],
    })
    const [audit] = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, inventory.id), eq(auditLog.action, 'adm.inventory.updated')))
    expect(audit?.data).toMatchObject({ fields: expect.arrayContaining(['name', 'price', 'date', 'variants']) })
  })

  it('answers 409 insufficient_inventory for a capacity below sold + held, and takes exactly sold + held', async () => {
    const event = await createTestEvent(ctx.app, a.seller.id)
    const inventory = await createTestInventory(ctx.app, event, { capacity: 20 })
    await sellTickets(ctx.app, inventory.id, 5)
    await holdTickets(ctx.app, a.seller.id, inventory.id, 6)
    await holdTickets(ctx.app, a.seller.id, inventory.id, 7, -1000)
    const refused = await adm.put(`/inventories/${inventory.id}`, { capacity: 10, name: 'Renamed' })
    expect(refused.statusCode).toBe(409)
    expect(refused.json().code).toBe('insufficient_inventory')
    const unchanged = (await adm.get(`/events/${event.id}/inventories`)).json().data[0]
    expect(unchanged).toMatchObject({ capacity: 20, name: 'General' })
    const res = await adm.put(`/inventories/${inventory.id}`, { capacity: 11 })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ capacity: 11, sold: 5, held: 6, available: 0 })
  })

  it('answers 409 to every capacity cut below sold + held made while others race', async () => {
    const event = await createTestEvent(ctx.app, a.seller.id)
    const inventory = await createTestInventory(ctx.app, event, { capacity: 50 })
    await holdTickets(ctx.app, a.seller.id, inventory.id, 15)
    const results = await Promise.all([40, 30, 20, 10, 5, 14, 16].map((capacity) => adm.put(`/inventories/${inventory.id}`, { capacity })))
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 409, 409, 409, 200])
    const final = (await adm.get(`/events/${event.id}/inventories`)).json().data[0]
    expect(final.capacity).toBeGreaterThanOrEqual(15)
  })

  it('cannot move an inventory to another event or seller; 404 for an unknown inventory', async () => {
    const eventOfA = await createTestEvent(ctx.app, a.seller.id)
    const eventOfB = await createTestEvent(ctx.app, b.seller.id)
    const inventoryOfB = await createTestInventory(ctx.app, eventOfB)
    expect400(await adm.put(`/inventories/${inventoryOfB.id}`, { event_id: eventOfA.id }))
    expect400(await adm.put(`/inventories/${inventoryOfB.id}`, { seller_id: a.seller.id }))
    const listed = (await adm.get(`/events/${eventOfB.id}/inventories`)).json().data
    expect(listed.map((i: { id: string; seller_id: string }) => [i.id, i.seller_id])).toEqual([[inventoryOfB.id, b.seller.id]])
    expect((await adm.get(`/events/${eventOfA.id}/inventories`)).json().data).toEqual([])
    expect((await adm.put(`/inventories/${randomUUID()}`, { capacity: 1 })).statusCode).toBe(404)
    expect400(await adm.put(`/inventories/${inventoryOfB.id}`, {}))
  })
})
