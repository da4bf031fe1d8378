import { expect, it } from 'vitest'
import { useTestApp } from '../build-app.js'
import { createTestCustomer } from '../factories/customers.js'
import { useTwoSellers } from '../factories/sellers.js'
import { expectError, getMe } from '../support/customer-auth.js'

// Answers kept for a minute: only a notice can make this process forget them.
const ctx = useTestApp({ env: { CATALOGUE_CACHE_MS: '60000' } })
const [a] = useTwoSellers(ctx)

const logout = (userId: string) => ctx.app.inject({ method: 'DELETE', url: `/stf/v1/auth/logout?user_id=${userId}`, headers: a.auth })

it("a logout ends the customer's sessions everywhere, and leaves the seller's key, catalogue and other customers in memory", async () => {
  const ana = await createTestCustomer(ctx.app, a)
  const bob = await createTestCustomer(ctx.app, a)
  // The seller's key, its catalogue answer and both customers' sessions are now in memory.
  expect((await getMe(ctx.app, ana.headers)).statusCode).toBe(200)
  expect((await getMe(ctx.app, bob.headers)).statusCode).toBe(200)
  expect((await ctx.app.inject({ method: 'GET', url: '/stf/v1/events', headers: a.auth })).statusCode).toBe(200)
  const catalogue = ctx.app.catalogueCache.size().entries
  expect(catalogue).toBeGreaterThan(0)
  expect(ctx.app.sellerAuth.authenticateCached(a.auth.authorization)).toBeDefined()
  const known = await countingQueries(() => getMe(ctx.app, bob.headers))

  // The answer waits until every process listening (this one) has heard the end of the sessions.
  expect((await logout(ana.customer.id)).statusCode).toBe(204)
  expectError(await getMe(ctx.app, ana.headers), 401, 'invalid_token')

  expect(ctx.app.sellerAuth.authenticateCached(a.auth.authorization)).toBeDefined()
  expect(ctx.app.catalogueCache.size().entries).toBe(catalogue)
  // Bob's session is still known live: his call asks the database no more than before.
  expect(await countingQueries(() => getMe(ctx.app, bob.headers))).toEqual(known)
})

/** The status of `call`, and how many queries it built on the app's database handle. */
async function countingQueries(call: () => Promise<{ statusCode: number }>) {
  const database = ctx.app.database
  const execute = database.db.select.bind(database.db)
  let lookups = 0
  database.db.select = ((...args: Parameters<typeof execute>) => {
    lookups++
    return execute(...args)
  }) as typeof database.db.select
  try {
    return { status: (await call()).statusCode, lookups }
  } finally {
    database.db.select = execute
  }
}
