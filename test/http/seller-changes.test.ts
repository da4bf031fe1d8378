import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { changeSellers, listenForSellerChanges, type SellerChangeListener } from '../../src/domain/sellers/seller-changes.js'
import { openDatabase, type Database } from '../../src/platform/db/database.js'
import { testDatabase, testDatabaseUrl, usesPostgres } from '../support/database.js'
import { eventually } from '../support/smtp-sink.js'

/**
 * Two database handles in one process stand for two apps (or two replicas): what one announces
 * reaches the other only through the database, and nothing of one's bookkeeping is the other's.
 * PostgreSQL only: the embedded database is one handle per process.
 */
describe.skipIf(!usesPostgres())('seller changes, per database handle', () => {
  let first: Database
  let second: Database
  const heard = { first: { changed: [] as string[], changing: [] as string[] }, second: { changed: [] as string[], changing: [] as string[] } }
  const stops: (() => Promise<void>)[] = []
  const recorder = (log: { changed: string[]; changing: string[] }): SellerChangeListener => ({
    changed: (sellerId) => log.changed.push(sellerId),
    changing: (sellerId) => log.changing.push(sellerId),
    reset: () => {},
  })

  beforeAll(async () => {
    first = await testDatabase()
    second = await openDatabase({ url: await testDatabaseUrl(), poolMax: 2 })
    stops.push(await listenForSellerChanges(first, recorder(heard.first)))
    stops.push(await listenForSellerChanges(second, recorder(heard.second)))
  })
  afterAll(async () => {
    for (const stop of stops) await stop()
    await second?.close()
  })

  it('tells the listeners of the announcing handle before commit answers, and the others through the database', async () => {
    const sellerId = randomUUID()
    await changeSellers(second.db, async (_tx, announce) => announce(sellerId))
    // The announcing handle's caches stopped trusting the seller before the answer...
    expect(heard.second.changing).toContain(sellerId)
    // ...and the answer waited until every listener had confirmed the notice.
    expect(heard.first.changed).toContain(sellerId)
    expect(heard.second.changed).toContain(sellerId)
    // The other handle learnt of it only through the database, never through this process's memory.
    expect(heard.first.changing).not.toContain(sellerId)
  })

  it('sends nothing for a change that rolled back', async () => {
    const sellerId = randomUUID()
    const marker = randomUUID()
    await expect(
      changeSellers(first.db, async (_tx, announce) => {
        await announce(sellerId)
        throw new Error('rolled back')
      }),
    ).rejects.toThrow('rolled back')
    await changeSellers(first.db, async (_tx, announce) => announce(marker))
    await eventually(() => heard.second.changed.includes(marker))
    expect(heard.second.changed).not.toContain(sellerId)
    expect(heard.first.changed).not.toContain(sellerId)
  })
})
