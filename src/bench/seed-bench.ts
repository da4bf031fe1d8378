import type { FastifyInstance } from 'fastify'
import { events } from '../domain/catalog/events.table.js'
import { inventories } from '../domain/catalog/inventories.table.js'
import { affiliates } from '../domain/sellers/affiliates.table.js'
import { createSeller } from '../domain/sellers/create-seller.js'

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)

/**
 * The benchmark's data set: a seller with 200 published events (one inventory each), 20
 * inventories with ample stock for basket writes, one flash-sale inventory of 1,000 tickets,
 * and an affiliate.
 */
export async function seedBench(app: FastifyInstance) {
  const { seller, apiKey } = await createSeller(app.db, {
    name: 'Bench Seller',
    storefrontUrl: 'https://bench.example.com',
    tokenHmac: app.secrets.tokenHmac,
    actor: { type: 'system' },
  })
  const eventRows = await app.db
    .insert(events)
    .values(
      Array.from({ length: 200 }, (_, n) => ({
        sellerId: seller.id,
        title: `Bench event ${n + 1}`,
        slug: `bench-event-${n + 1}`,
        description: 'A benchmark event',
        status: 'published' as const,
        source: 'bench',
      })),
    )
    .returning({ id: events.id })
  const catalogue = await app.db
    .insert(inventories)
    .values(
      eventRows.map((e, n) => ({
        sellerId: seller.id,
        eventId: e.id,
        date: day(1 + (n % 60)),
        name: 'General',
        price: 5000 + n * 10,
        // The first 20 carry the basket-write scenario: stock that never runs out.
        capacity: n < 20 ? 1_000_000 : 500,
      })),
    )
    .returning({ id: inventories.id })
  const ample = catalogue.slice(0, 20).map((i) => i.id)
  const [flash] = await app.db
    .insert(inventories)
    .values({ sellerId: seller.id, eventId: eventRows[0]!.id, date: day(30), name: 'Flash sale', price: 10000, capacity: 1000 })
    .returning({ id: inventories.id })
  const [affiliate] = await app.db.insert(affiliates).values({ sellerId: seller.id, code: 'BENCH', name: 'Bench affiliate' }).returning()
  return { sellerId: seller.id, apiKey, affiliateCode: affiliate!.code, ampleInventoryIds: ample, flashInventoryId: flash!.id }
}
