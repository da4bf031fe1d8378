import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { events } from '../../src/domain/catalog/events.table.js'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { buildTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { createTestAffiliate, createTestSeller, type TestSeller } from '../factories/sellers.js'
import { resetDatabase, testDatabase } from '../support/database.js'
import { eventually } from '../support/smtp-sink.js'
import type { FastifyInstance } from 'fastify'
import { createCatalogueCache } from '../../src/storefront/catalogue-cache.js'
import { updateInventory } from '../../src/domain/catalog/update-inventory.js'

/**
 * The catalogue cache (CATALOGUE_CACHE_MS): answers kept per seller and affiliate scope, with an
 * ETag; a catalogue change, announced by the database at commit, ends them at once; anything
 * else (a hold, a sale) shows within the cache's age.
 */
let app: FastifyInstance
let a: TestSeller
let b: TestSeller
let eventId: string
let inventoryId: string

beforeAll(async () => {
  await resetDatabase(await testDatabase())
  // Long enough that only a notice, never the age, can end an answer during a test.
  app = await buildTestApp({ env: { CATALOGUE_CACHE_MS: '60000' } })
  a = await createTestSeller(app)
  b = await createTestSeller(app)
  const event = await createTestEvent(app, a.seller.id, { title: 'Cached show' })
  eventId = event.id
  inventoryId = (await createTestInventory(app, event, { price: 5000, capacity: 10 })).id
})
afterAll(async () => {
  await app?.close()
})

const get = (url: string, headers: Record<string, string>) => app.inject({ method: 'GET', url, headers })
const titles = async (headers: Record<string, string>) => (await get('/stf/v1/events', headers)).json().data.map((e: { title: string }) => e.title)

describe('the catalogue cache', () => {
  it('answers with an ETag, and 304 with no body to If-None-Match', async () => {
    for (const url of ['/stf/v1/events', `/stf/v1/events/${eventId}`, `/stf/v1/events/${eventId}/availability`]) {
      const first = await get(url, a.auth)
      expect(first.statusCode, url).toBe(200)
      const etag = first.headers.etag as string
      expect(etag, url).toMatch(/^"[A-Za-z0-9_-]+"$/)
      expect(first.headers['cache-control']).toBe('private, no-cache')
      const again = await get(url, a.auth)
      expect(again.body).toBe(first.body)
      expect(again.headers.etag).toBe(etag)
      const revalidated = await get(url, { ...a.auth, 'if-none-match': etag })
      expect(revalidated.statusCode, url).toBe(304)
      expect(revalidated.body).toBe('')
      expect((await get(url, { ...a.auth, 'if-none-match': '"something-else"' })).statusCode).toBe(200)
    }
  })

  it('keeps answers apart per seller and per affiliate scope', async () => {
    const other = await createTestEvent(app, a.seller.id, { title: 'Not for the affiliate' })
    await createTestInventory(app, other)
    await createTestAffiliate(app, a.seller.id, { code: 'ONLYONE', eventIds: [eventId] })
    await eventually(async () => (await titles(a.auth)).includes('Not for the affiliate'))
    expect(await titles({ ...a.auth, 'x-affiliate-code': 'ONLYONE' })).toEqual(['Cached show'])
    expect(await titles(b.auth)).toEqual([])
    // The seller's full answer is still whole after the affiliate's was cached.
    expect(await titles(a.auth)).toContain('Not for the affiliate')
  })

  it('forgets a seller’s answers when its catalogue changes, also behind the application’s back', async () => {
    expect(await titles(a.auth)).toContain('Cached show')
    // A write straight to the table: the database's trigger announces it at commit.
    await app.db.update(events).set({ title: 'Renamed show' }).where(eq(events.id, eventId))
    await eventually(async () => (await titles(a.auth)).includes('Renamed show'))
    const priceBefore = (await get(`/stf/v1/events/${eventId}/availability`, a.auth)).json().data[0].inventories[0].price
    await app.db
      .update(inventories)
      .set({ price: priceBefore + 100 })
      .where(eq(inventories.id, inventoryId))
    await eventually(async () => (await get(`/stf/v1/events/${eventId}/availability`, a.auth)).json().data[0].inventories[0].price === priceBefore + 100)
  })

  it('forgets them when an inventory’s show times change, which its trigger does not watch: the back office announces it', async () => {
    const show = async () => (await get(`/stf/v1/events/${eventId}/availability`, a.auth)).json().data[0].inventories[0]
    expect(await show()).toMatchObject({ time: null, doors_time: null })
    await updateInventory(app.db, { inventoryId, time: '20:00', doors_time: '19:00', actor: { type: 'system' } })
    await eventually(async () => (await show()).time === '20:00')
    expect(await show()).toMatchObject({ time: '20:00', doors_time: '19:00' })
  })

  it('computes a missed answer once for the requests that ask for it meanwhile, and gives each the same answer', async () => {
    const store = vi.spyOn(app.catalogueCache, 'store')
    try {
      const answers = await Promise.all(Array.from({ length: 8 }, () => get('/stf/v1/events?limit=7', a.auth)))
      expect(store).toHaveBeenCalledTimes(1)
      expect(answers.map((res) => res.statusCode)).toEqual(Array(8).fill(200))
      expect(new Set(answers.map((res) => res.body)).size).toBe(1)
      expect(new Set(answers.map((res) => res.headers.etag)).size).toBe(1)
      expect(answers.every((res) => res.headers['cache-control'] === 'private, no-cache')).toBe(true)
      // Forgotten, then asked again: one that names the ETag while it waits gets 304, as after a hit.
      const etag = answers[0]!.headers.etag as string
      app.catalogueCache.forgetSeller(a.seller.id)
      store.mockClear()
      const [again, revalidated] = await Promise.all([
        get('/stf/v1/events?limit=7', a.auth),
        get('/stf/v1/events?limit=7', { ...a.auth, 'if-none-match': etag }),
      ])
      expect(store).toHaveBeenCalledTimes(1)
      expect([again.statusCode, again.headers.etag]).toEqual([200, etag])
      expect([revalidated.statusCode, revalidated.body, revalidated.headers.etag]).toEqual([304, '', etag])
    } finally {
      store.mockRestore()
    }
  })

  it('lets the requests that waited for a failed answer compute their own', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => get('/stf/v1/events/no-such-slug', a.auth)))
    expect(answers.map((res) => res.statusCode)).toEqual(Array(5).fill(404))
    expect(answers.every((res) => res.json().code === 'not_found')).toBe(true)
  })

  it('does not cache errors, and never answers another seller’s cached event', async () => {
    expect((await get(`/stf/v1/events/${eventId}`, a.auth)).statusCode).toBe(200)
    expect((await get(`/stf/v1/events/${eventId}`, b.auth)).statusCode).toBe(404)
    expect((await get(`/stf/v1/events/${eventId}`, b.auth)).statusCode).toBe(404)
    expect((await get('/stf/v1/events?limit=0', a.auth)).statusCode).toBe(400)
  })
})

describe('the catalogue cache’s bounds', () => {
  it('keeps at most maxTotalBytes of answers and maxEntries answers, dropping the oldest first', async () => {
    const cache = createCatalogueCache({ database: app.database, maxAgeMs: 60_000, maxEntries: 3, maxTotalBytes: 250 })
    await cache.start()
    try {
      const keep = (key: string, bytes: number) => cache.store(cache.miss(key, a.seller.id), 'x'.repeat(bytes))
      keep('one', 100)
      keep('two', 100)
      expect(cache.size()).toEqual({ entries: 2, bytes: 200 })
      keep('three', 100) // over 250 bytes: the oldest goes
      expect(cache.size()).toEqual({ entries: 2, bytes: 200 })
      expect(cache.lookup('one')).toBeUndefined()
      expect(cache.lookup('three')?.body).toHaveLength(100)
      keep('three', 10) // the same key again replaces its answer
      keep('four', 10)
      keep('five', 10) // over 3 entries: the oldest goes
      expect(cache.size().entries).toBe(3)
      expect(cache.lookup('two')).toBeUndefined()
      keep('huge', 300) // larger than the whole budget: never kept, and it evicts nothing
      expect(cache.lookup('huge')).toBeUndefined()
      expect(cache.size().entries).toBe(3)
      // Too large to keep, it is still the fresh answer its waiters may be given; one computed
      // while a notice came is neither kept nor given.
      expect(keep('huge', 300).fresh?.body).toHaveLength(300)
      const miss = cache.miss('changed', a.seller.id)
      cache.forgetSeller(a.seller.id)
      const stale = cache.store(miss, 'x'.repeat(10))
      expect([stale.fresh, cache.lookup('changed')]).toEqual([undefined, undefined])
      expect(stale.etag).toMatch(/^"[A-Za-z0-9_-]+"$/)
    } finally {
      await cache.stop()
    }
  })
})
