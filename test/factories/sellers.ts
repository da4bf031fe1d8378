import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { beforeAll } from 'vitest'
import { affiliateEvents, affiliates } from '../../src/domain/sellers/affiliates.table.js'
import { createSeller } from '../../src/domain/sellers/create-seller.js'
import type { SellerSettingsChange } from '../../src/domain/sellers/seller-settings.js'
import type { SellerRow } from '../../src/domain/sellers/sellers.repo.js'

export type TestSeller = {
  seller: SellerRow
  apiKey: string
  apiKeyId: string
  /** Headers of a storefront call with this seller's Basic credentials. */
  auth: { authorization: string }
}

export const basicAuth = (sellerId: string, apiKey: string) => ({
  authorization: `Basic ${Buffer.from(`${sellerId}:${apiKey}`).toString('base64')}`,
})

/** A seller with its first API key, through the same service the back office uses. */
export async function createTestSeller(
  app: FastifyInstance,
  overrides: { name?: string; storefrontUrl?: string; settings?: SellerSettingsChange } = {},
): Promise<TestSeller> {
  const suffix = randomBytes(3).toString('hex')
  const { seller, apiKey, apiKeyId } = await createSeller(app.db, {
    name: overrides.name ?? `Seller ${suffix}`,
    storefrontUrl: overrides.storefrontUrl ?? `https://shop-${suffix}.example.com`,
    ...(overrides.settings ? { settings: overrides.settings } : {}),
    tokenHmac: app.secrets.tokenHmac,
    actor: { type: 'system' },
  })
  return { seller, apiKey, apiKeyId, auth: basicAuth(seller.id, apiKey) }
}

export async function createTestAffiliate(
  app: FastifyInstance,
  sellerId: string,
  overrides: { code?: string; name?: string; active?: boolean; eventIds?: string[] } = {},
) {
  const [affiliate] = await app.db
    .insert(affiliates)
    .values({
      sellerId,
      code: overrides.code ?? `AFF${randomBytes(3).toString('hex').toUpperCase()}`,
      name: overrides.name ?? 'Affiliate',
      active: overrides.active ?? true,
      allEvents: !overrides.eventIds,
    })
    .returning()
  if (overrides.eventIds?.length) {
    await app.db.insert(affiliateEvents).values(overrides.eventIds.map((eventId) => ({ affiliateId: affiliate!.id, eventId })))
  }
  return affiliate!
}

type SellerOverrides = Parameters<typeof createTestSeller>[1]

/**
 * Seller a and seller b of a test file, created once the file's app is up: every tenant-isolation
 * check needs a second seller whose data must stay out of reach. Declare it right after
 * `useTestApp()`: `const [a, b] = useTwoSellers(ctx)`.
 */
export function useTwoSellers(ctx: { app: FastifyInstance }, overrides: { a?: SellerOverrides; b?: SellerOverrides } = {}): [TestSeller, TestSeller] {
  const a = {} as TestSeller
  const b = {} as TestSeller
  beforeAll(async () => {
    Object.assign(a, await createTestSeller(ctx.app, overrides.a))
    Object.assign(b, await createTestSeller(ctx.app, overrides.b))
  })
  return [a, b]
}
