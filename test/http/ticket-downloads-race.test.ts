import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { useTwoSellers } from '../factories/sellers.js'
import { buyTickets } from '../support/checkin.js'
import { testDatabaseUrl, usesPostgres } from '../support/database.js'

/**
 * A ticket download racing a void of the same ticket (issue 30, found in review): the download
 * must not count as registered a ticket that was voided between its reading and its writing.
 * Two transactions at once need PostgreSQL (the embedded database runs one at a time).
 */
const ctx = useTestApp()
const [a] = useTwoSellers(ctx)

describe.skipIf(!usesPostgres())('POST /stf/v1/tickets/downloads while the ticket is being voided', () => {
  it('waits for the void and answers the ticket as voided, not registered', async () => {
    const inventory = await createTestInventory(ctx.app, await createTestEvent(ctx.app, a.seller.id))
    const order = await buyTickets(ctx.app, a, [{ inventory_id: inventory.id, quantity: 1 }])
    const identifier = order.tickets[0]!.identifier
    const voider = new pg.Client({ connectionString: await testDatabaseUrl() })
    await voider.connect()
    try {
      // A void as the back office runs it: the order locked, then the ticket voided; not committed yet.
      await voider.query('begin')
      await voider.query('select id from orders where id = $1 for update', [order.id])
      await voider.query('update tickets set voided_at = now() where identifier = $1', [identifier])
      const download = ctx.app.inject({
        method: 'POST',
        url: '/stf/v1/tickets/downloads',
        headers: a.auth,
        payload: { order_id: order.id, identifiers: [identifier] },
      })
      // Until the download waits on a lock the void holds (bounded).
      for (let n = 0; n < 400; n++) {
        const { rows } = await voider.query(
          "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()",
        )
        if (rows[0].n > 0) break
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      await voider.query('commit')
      const res = await download
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ registered: 0, first_access: [], unknown: [], voided: [identifier] })
    } finally {
      await voider.end()
    }
  })
})
