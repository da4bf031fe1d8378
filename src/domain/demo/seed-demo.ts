import { randomBytes } from 'node:crypto'
import { count } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import type { AuditActor } from '../audit/record-audit.js'
import { createEvent } from '../catalog/create-event.js'
import { createInventory } from '../catalog/create-inventory.js'
import { createCoupon } from '../coupons/create-coupon.js'
import { createAffiliate } from '../sellers/create-affiliate.js'
import { createSeller } from '../sellers/create-seller.js'
import { sellers } from '../sellers/sellers.table.js'
import { bootstrapAdmin } from '../staff/bootstrap-admin.js'

export type SeedDemoOptions = {
  tokenHmac: Buffer
  /** The bootstrap admin's email (`ADMIN_EMAIL`), when one is configured: no demo admin then. */
  adminEmail?: string | undefined
  /** Event dates count from this day (default: today). */
  today?: Date
}

export const DEMO_ADMIN_EMAIL = 'admin@boxoffice.local'

export type DemoData = {
  sellerId: string
  /** Shown once: only its hash is stored. */
  apiKey: string
  eventIds: string[]
  couponCode: string
  affiliateCode: string
  /**
   * The staff login: the configured admin (password null: the one configured), or a demo
   * admin with a generated password shown this once; null when staff users already existed.
   */
  admin: { email: string; password: string | null } | null
}

const actor: AuditActor = { type: 'system' }

const day = (today: Date, offset: number) => new Date(today.getTime() + offset * 86_400_000).toISOString().slice(0, 10)

/** Full price, and half price (meia-entrada, by law for students, teachers and over-60s). */
const meia = (price: number) => [
  { name: 'Inteira', description: 'Full price', type: 'full' },
  { name: 'Meia-entrada', description: 'Students, teachers and over-60s, with proof at the door', type: 'half', price: Math.round(price / 2) },
]

const CATALOGUE = [
  {
    title: 'Festival de Jazz de Inverno',
    description: 'Two nights of jazz under the stars, with local and international bands.',
    image: 'https://images.example.com/demo/jazz.jpg',
    days: [7, 8],
    inventories: [
      { name: 'Pista', price: 12_000, capacity: 500, variants: meia(12_000) },
      { name: 'Camarote', price: 35_000, capacity: 40, variants: [] },
    ],
  },
  {
    title: 'Stand-up: Noite de Risadas',
    description: 'Four comedians, one microphone.',
    image: 'https://images.example.com/demo/standup.jpg',
    days: [14],
    inventories: [{ name: 'Plateia', price: 6_000, capacity: 200, variants: meia(6_000) }],
  },
  {
    title: 'Orquestra Sinfônica: Clássicos do Cinema',
    description: 'Film scores from six decades, played live.',
    image: 'https://images.example.com/demo/orchestra.jpg',
    days: [21, 28],
    inventories: [
      { name: 'Plateia', price: 9_000, capacity: 300, variants: meia(9_000) },
      { name: 'Balcão', price: 5_000, capacity: 150, variants: meia(5_000) },
    ],
  },
]

/**
 * Seeds a database that has no seller yet with a demo seller: published events over the next
 * weeks, inventories with variants, a coupon and an affiliate, through the same services the
 * back office uses; and, unless an admin is configured, a demo admin when no staff user
 * exists. Answers null, and changes nothing, when a seller already exists.
 */
export async function seedDemo(db: Db, { tokenHmac, adminEmail, today = new Date() }: SeedDemoOptions): Promise<DemoData | null> {
  const [existing] = await db.select({ n: count() }).from(sellers)
  if ((existing?.n ?? 0) > 0) return null

  const { seller, apiKey } = await createSeller(db, {
    name: 'Demo Tickets',
    storefrontUrl: 'http://localhost:8080',
    settings: { max_installments: 10, interest_free_installments: 3 },
    tokenHmac,
    actor,
  })
  const sellerId = seller.id
  const eventIds: string[] = []
  for (const item of CATALOGUE) {
    const event = await createEvent(db, {
      sellerId,
      title: item.title,
      description: item.description,
      status: 'published',
      source: 'demo',
      attributes: [{ name: 'Classificação', scope: 'event', text: 'Livre para todos os públicos', type: 'rating', value: 'L' }],
      images: [{ name: 'Cover', credits: 'Demo', mime_type: 'image/jpeg', url: item.image }],
      actor,
    })
    eventIds.push(event.id)
    for (const offset of item.days) {
      for (const inventory of item.inventories) {
        await createInventory(db, { eventId: event.id, date: day(today, offset), ...inventory, actor })
      }
    }
  }
  const coupon = await createCoupon(db, { sellerId, code: 'BEMVINDO10', type: 'percent', value: 10, maxUsesPerCustomer: 1, actor })
  const affiliate = await createAffiliate(db, { sellerId, code: 'PARCEIRO', name: 'Demo partner', actor })
  return { sellerId, apiKey, eventIds, couponCode: coupon.code, affiliateCode: affiliate.code, admin: await demoAdmin(db, adminEmail) }
}

async function demoAdmin(db: Db, adminEmail: string | undefined): Promise<DemoData['admin']> {
  if (adminEmail) return { email: adminEmail, password: null }
  const password = randomBytes(18).toString('base64url')
  const created = await bootstrapAdmin(db, { name: 'Demo admin', email: DEMO_ADMIN_EMAIL, password })
  return created ? { email: DEMO_ADMIN_EMAIL, password } : null
}
