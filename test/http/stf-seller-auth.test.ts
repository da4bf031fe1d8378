import { eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiKeys } from '../../src/domain/sellers/api-keys.table.js'
import { affiliates } from '../../src/domain/sellers/affiliates.table.js'
import { issueApiKey } from '../../src/domain/sellers/issue-api-key.js'
import { deactivateAffiliate } from '../../src/domain/sellers/deactivate-affiliate.js'
import { revokeApiKey } from '../../src/domain/sellers/revoke-api-key.js'
import { changeSellers } from '../../src/domain/sellers/seller-changes.js'
import { LISTENER_NAME, listenersOf } from '../../src/platform/db/database.js'
import { sellers } from '../../src/domain/sellers/sellers.table.js'
import { useTestApp } from '../build-app.js'
import { basicAuth, createTestAffiliate, createTestSeller, useTwoSellers } from '../factories/sellers.js'
import { testDatabaseUrl, usesPostgres } from '../support/database.js'
import { buildSecondApp } from '../support/second-app.js'
import { eventually } from '../support/smtp-sink.js'

const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx, { a: { name: 'Seller A' }, b: { name: 'Seller B' } })

const whoami = (headers: Record<string, string>, app: FastifyInstance = ctx.app) => app.inject({ method: 'GET', url: '/stf/v1/seller', headers })

const expectUnauthorized = (res: Awaited<ReturnType<typeof whoami>>) => {
  expect(res.statusCode).toBe(401)
  expect(res.headers['www-authenticate']).toBe('Basic realm="stf"')
  expect(res.json()).toMatchObject({ code: 'unauthorized', trace_id: res.headers['x-trace-id'] })
}

describe('storefront seller resolution', () => {
  it('resolves the seller from its Basic credentials', async () => {
    const res = await whoami(a.auth)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      id: a.seller.id,
      name: 'Seller A',
      storefront_url: a.seller.storefrontUrl,
      settings: {
        basket_ttl_seconds: 900,
        max_installments: 12,
        interest_free_installments: 1,
        monthly_rate: 0.0299,
        min_installment_amount: 500,
        timezone: 'America/Sao_Paulo',
        waiting_list_offer_minutes: 1440,
        waiting_list_max_quantity: 4,
        locale: 'pt-BR',
        payment_minutes: { pix: 30, boleto: 4320, credit_card: 30 },
        withdrawal_days: 7,
        withdrawal_cutoff_hours: 48,
        guest_checkout: true,
        holder_changes_max: 2,
      },
      affiliate: null,
    })
  })

  it('issues keys as sk_ plus at least 32 random bytes and stores only a hash', async () => {
    expect(a.apiKey).toMatch(/^sk_[A-Za-z0-9_-]{43,}$/)
    const rows = await ctx.app.db.select().from(apiKeys).where(eq(apiKeys.sellerId, a.seller.id))
    expect(rows).toHaveLength(1)
    expect(JSON.stringify(rows)).not.toContain(a.apiKey)
    expect(rows[0]!.prefix).toBe(a.apiKey.slice(0, 7))
  })

  it('refuses missing, malformed and wrong credentials with 401 and a Basic challenge', async () => {
    expectUnauthorized(await whoami({}))
    expectUnauthorized(await whoami({ authorization: 'Bearer abc' }))
    expectUnauthorized(await whoami({ authorization: 'Basic !!!notbase64' }))
    expectUnauthorized(await whoami(basicAuth(a.seller.id, `${a.apiKey}x`)))
    expectUnauthorized(await whoami(basicAuth(a.seller.id, '')))
    expectUnauthorized(await whoami(basicAuth('not-a-uuid', a.apiKey)))
  })

  it("refuses one seller's key presented with another seller's id", async () => {
    expectUnauthorized(await whoami(basicAuth(b.seller.id, a.apiKey)))
    // Also once the key is cached from a correct use.
    expect((await whoami(a.auth)).statusCode).toBe(200)
    expectUnauthorized(await whoami(basicAuth(b.seller.id, a.apiKey)))
  })

  it('accepts several keys per seller and refuses a revoked one on the very next request', async () => {
    const { apiKey, key } = await issueApiKey(ctx.app.db, { sellerId: a.seller.id, tokenHmac: ctx.app.secrets.tokenHmac })
    const second = basicAuth(a.seller.id, apiKey)
    expect((await whoami(second)).statusCode).toBe(200)
    await revokeApiKey(ctx.app.db, { sellerId: a.seller.id, keyId: key.id, actor: { type: 'system' } })
    expectUnauthorized(await whoami(second))
    expect((await whoami(a.auth)).statusCode).toBe(200)
  })

  it("cannot revoke another seller's key", async () => {
    await expect(revokeApiKey(ctx.app.db, { sellerId: b.seller.id, keyId: a.apiKeyId, actor: { type: 'system' } })).rejects.toMatchObject({
      code: 'not_found',
    })
    expect((await whoami(a.auth)).statusCode).toBe(200)
  })

  it('refuses a disabled seller at once and accepts it again when enabled', async () => {
    const c = await createTestSeller(ctx.app)
    expect((await whoami(c.auth)).statusCode).toBe(200)
    const setStatus = (status: 'active' | 'disabled') =>
      changeSellers(ctx.app.db, async (tx, announce) => {
        await tx.update(sellers).set({ status }).where(eq(sellers.id, c.seller.id))
        await announce(c.seller.id)
      })
    await setStatus('disabled')
    expectUnauthorized(await whoami(c.auth))
    await setStatus('active')
    expect((await whoami(c.auth)).statusCode).toBe(200)
  })

  it('answers the canonical header it verified before from memory, and the same credentials spelled otherwise from the database', async () => {
    const c = await createTestSeller(ctx.app)
    const spelledOtherwise = [c.auth.authorization.replace('Basic ', 'basic '), basicAuth(c.seller.id.toUpperCase(), c.apiKey).authorization]
    for (const authorization of [c.auth.authorization, ...spelledOtherwise]) expect((await whoami({ authorization })).statusCode).toBe(200)
    // Revoked behind the application's back: no change is announced, so memory still trusts the
    // canonical header, and only that one: other spellings were never remembered.
    await ctx.app.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, c.apiKeyId))
    expect((await whoami(c.auth)).statusCode).toBe(200)
    for (const authorization of spelledOtherwise) expectUnauthorized(await whoami({ authorization }))
    expectUnauthorized(await whoami(basicAuth(b.seller.id, c.apiKey)))
    ctx.app.sellerAuth.forgetSeller(c.seller.id)
    expectUnauthorized(await whoami(c.auth))
  })

  it('records when a key was last used', async () => {
    const c = await createTestSeller(ctx.app)
    await whoami(c.auth)
    await eventually(async () => {
      const [row] = await ctx.app.db.select().from(apiKeys).where(eq(apiKeys.id, c.apiKeyId))
      return row?.lastUsedAt instanceof Date
    })
  })
})

describe('X-Affiliate-Code', () => {
  it('attributes the call to an active affiliate of the seller, case-insensitively', async () => {
    await createTestAffiliate(ctx.app, a.seller.id, { code: 'PARTNER1', name: 'Partner One' })
    for (const code of ['PARTNER1', 'partner1']) {
      const res = await whoami({ ...a.auth, 'x-affiliate-code': code })
      expect(res.statusCode).toBe(200)
      expect(res.json().affiliate).toEqual({ code: 'PARTNER1', name: 'Partner One' })
    }
  })

  it("answers 400 invalid_affiliate for an unknown, inactive or another seller's code", async () => {
    await createTestAffiliate(ctx.app, a.seller.id, { code: 'SLEEPY', active: false })
    await createTestAffiliate(ctx.app, b.seller.id, { code: 'BONLY' })
    for (const code of ['NOPE', 'SLEEPY', 'BONLY', '', 'x'.repeat(65)]) {
      const res = await whoami({ ...a.auth, 'x-affiliate-code': code })
      expect(res.statusCode, code).toBe(400)
      expect(res.json().code).toBe('invalid_affiliate')
    }
  })

  it('stops accepting an affiliate as soon as it is deactivated', async () => {
    const affiliate = await createTestAffiliate(ctx.app, a.seller.id, { code: 'SHORTLIVED' })
    // From the database, then from the affiliate memory, then from the credentials' entry.
    for (let n = 0; n < 3; n++) expect((await whoami({ ...a.auth, 'x-affiliate-code': 'SHORTLIVED' })).statusCode).toBe(200)
    await changeSellers(ctx.app.db, async (tx, announce) => {
      await tx.update(affiliates).set({ active: false }).where(eq(affiliates.id, affiliate.id))
      await announce(a.seller.id)
    })
    for (let n = 0; n < 3; n++) expect((await whoami({ ...a.auth, 'x-affiliate-code': 'SHORTLIVED' })).json().code).toBe('invalid_affiliate')
  })

  it('checks credentials before the affiliate code', async () => {
    expectUnauthorized(await whoami({ 'x-affiliate-code': 'PARTNER1' }))
  })
})

describe.skipIf(!usesPostgres())('a second process on the same PostgreSQL', () => {
  let other: FastifyInstance
  let otherClose: () => Promise<void>
  beforeAll(async () => {
    ;({ app: other, close: otherClose } = await buildSecondApp())
  })
  afterAll(() => otherClose?.())

  it('refuses a key revoked through the first on its next request', async () => {
    const c = await createTestSeller(ctx.app)
    expect((await whoami(c.auth, other)).statusCode).toBe(200)
    expect((await whoami(c.auth, other)).statusCode).toBe(200)
    // The revocation answers once every process listening here has heard it: no pause needed.
    await revokeApiKey(ctx.app.db, { sellerId: c.seller.id, keyId: c.apiKeyId, actor: { type: 'system' } })
    expectUnauthorized(await whoami(c.auth, other))
  })

  it('refuses a deactivated affiliate through the first on the very next request, many times over', async () => {
    const c = await createTestSeller(ctx.app)
    for (let round = 0; round < 20; round++) {
      const code = `RACE${round}`
      const affiliate = await createTestAffiliate(ctx.app, c.seller.id, { code })
      for (let n = 0; n < 2; n++) expect((await whoami({ ...c.auth, 'x-affiliate-code': code }, other)).statusCode).toBe(200)
      await deactivateAffiliate(ctx.app.db, { affiliateId: affiliate.id, actor: { type: 'system' } })
      expect((await whoami({ ...c.auth, 'x-affiliate-code': code }, other)).json().code).toBe('invalid_affiliate')
    }
  })
})

describe.skipIf(!usesPostgres())('a seller change waits until every listening process has forgotten the seller', () => {
  const setName = (sellerId: string, name: string) =>
    changeSellers(ctx.app.db, async (tx, announce) => {
      await tx.update(sellers).set({ name }).where(eq(sellers.id, sellerId))
      await announce(sellerId)
    })
  const timed = async (work: Promise<unknown>) => {
    const started = Date.now()
    await work.catch(() => undefined)
    return Date.now() - started
  }

  /** Another process's listening connection, that confirms each change after `delayMs`, or never. */
  async function otherListener(delayMs: number | 'never') {
    const client = new pg.Client({ connectionString: await testDatabaseUrl(), application_name: LISTENER_NAME })
    await client.connect()
    const pid = String((await client.query('select pg_backend_pid() as pid')).rows[0].pid)
    client.on('notification', (n) => {
      const changeId = n.payload?.split(' ')[1]
      if (delayMs === 'never' || !changeId) return
      // Its answer may come after the test has closed the connection: the confirmation went out at commit.
      const confirm = () => client.query('select pg_notify($1, $2)', ['seller_changes_heard', `${changeId} ${pid}`]).catch(() => undefined)
      setTimeout(confirm, delayMs)
    })
    await client.query('listen seller_changes')
    // Only this app's listener and this one: a listener of an app closed just before may still be
    // on its way out, and would make the change wait for its deadline.
    for (let n = 0; (await listenersOf(ctx.app.db)).length !== 2; n++) {
      if (n === 100) throw new Error('the listening connections did not settle')
      await new Promise((r) => setTimeout(r, 20))
    }
    return { close: () => client.end() }
  }

  it('answers once the other process confirms, not before', async () => {
    const c = await createTestSeller(ctx.app)
    const other = await otherListener(300)
    try {
      const took = await timed(setName(c.seller.id, 'Confirmed late'))
      expect(took).toBeGreaterThanOrEqual(290)
      expect(took).toBeLessThan(950)
    } finally {
      await other.close()
    }
  })

  it('answers after a second when a listening process never confirms; a rolled-back change does not wait', async () => {
    const c = await createTestSeller(ctx.app)
    const other = await otherListener('never')
    try {
      expect(await timed(setName(c.seller.id, 'Never confirmed'))).toBeGreaterThanOrEqual(950)
      const started = Date.now()
      const rolledBack = changeSellers(ctx.app.db, async (_tx, announce) => {
        await announce(c.seller.id)
        throw new Error('changed its mind')
      })
      await expect(rolledBack).rejects.toThrow('changed its mind')
      expect(Date.now() - started).toBeLessThan(950)
    } finally {
      await other.close()
    }
  })
})

describe('a failure behind the credentials check', () => {
  it('answers 500 internal_error, not 401, when the affiliate lookup fails', async () => {
    const original = ctx.app.sellerAuth.resolveAffiliate
    ctx.app.sellerAuth.resolveAffiliate = async () => {
      throw new Error('lookup failed')
    }
    try {
      const res = await whoami({ ...a.auth, 'x-affiliate-code': 'NEVER-CACHED-CODE' })
      expect(res.statusCode).toBe(500)
      expect(res.json().code).toBe('internal_error')
      expect(res.headers['www-authenticate']).toBeUndefined()
    } finally {
      ctx.app.sellerAuth.resolveAffiliate = original
    }
  })
})
