import { randomBytes } from 'node:crypto'
import { asc, eq } from 'drizzle-orm'
import { hashPassword } from '../../platform/auth/passwords.js'
import type { Db } from '../../platform/db/database.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { events } from '../catalog/events.table.js'
import { createDevice } from '../checkin/create-device.js'
import { endCustomerSessions } from '../customers/customer-sessions.js'
import { findCustomerByEmail, setPasswordHash } from '../customers/customers.repo.js'
import { endingCustomerSessions } from '../sellers/seller-changes.js'
import { createApiKey } from '../sellers/create-api-key.js'
import { revokeUserSessions } from '../staff/sessions.repo.js'
import { findUserByEmail, updateUserRow } from '../staff/users.repo.js'
import { DEMO_ADMIN_EMAIL, DEMO_BUYER_EMAIL, DEMO_EVENT_SOURCE } from './seed-demo.js'

export type RenewDemoCredentialsOptions = {
  tokenHmac: Buffer
  /** The bootstrap admin's email (`ADMIN_EMAIL`), when one is configured: its password is left alone. */
  adminEmail?: string | undefined
}

export type DemoCredentials = {
  sellerId: string
  /** A new API key, shown this once; the demo seller's earlier keys keep working. */
  apiKey: string
  /** The demo admin with a new password (its sessions signed out); null when there is none to renew. */
  admin: { email: string; password: string } | null
  /** The demo buyer with a new password (her sessions signed out); null when there is none. */
  buyer: { email: string; password: string } | null
  /** A new scanner device's pairing code (works once, within 24 h). */
  pairingCode: string
}

const actor: AuditActor = { type: 'system' }

/**
 * The seller the demo seed created, found by its events (the seed marks them), or null.
 */
export async function findDemoSeller(db: Db): Promise<string | null> {
  const [row] = await db.select({ sellerId: events.sellerId }).from(events).where(eq(events.source, DEMO_EVENT_SOURCE)).orderBy(asc(events.createdAt)).limit(1)
  return row?.sellerId ?? null
}

/**
 * Issues the demo's credentials again: API keys, passwords and pairing codes are stored only as
 * hashes, so the ones printed when the demo was seeded cannot be shown again; new ones can. A new
 * API key beside the old ones, a new password for the demo admin (never for an admin configured
 * through `ADMIN_EMAIL`, whose password is the configured one) and for the demo buyer, and a new
 * scanner device to pair.
 * Answers null, and changes nothing, when the database holds no demo seller.
 */
export async function renewDemoCredentials(db: Db, options: RenewDemoCredentialsOptions): Promise<DemoCredentials | null> {
  const sellerId = await findDemoSeller(db)
  if (!sellerId) return null
  const { apiKey } = await createApiKey(db, { sellerId, name: 'Demo (renewed)', tokenHmac: options.tokenHmac, actor })
  const device = await createDevice(db, { sellerId, name: 'Demo scanner', tokenHmac: options.tokenHmac, actor })
  return {
    sellerId,
    apiKey,
    admin: options.adminEmail ? null : await renewDemoAdmin(db),
    buyer: await renewDemoBuyer(db, sellerId),
    pairingCode: device.pairing_code,
  }
}

async function renewDemoAdmin(db: Db): Promise<DemoCredentials['admin']> {
  const user = await findUserByEmail(db, DEMO_ADMIN_EMAIL)
  if (!user) return null
  const password = randomBytes(18).toString('base64url')
  // argon2 runs before the transaction, never inside it.
  const passwordHash = await hashPassword(password)
  await db.transaction(async (tx) => {
    await updateUserRow(tx, user.id, { passwordHash })
    await revokeUserSessions(tx, user.id, 'password_changed')
    await recordAudit(tx, actor, { action: 'iam.user.password_reset', target: { type: 'staff_user', id: user.id } })
  })
  return { email: DEMO_ADMIN_EMAIL, password }
}

/** A new password for the demo buyer, her sessions ended as a password reset ends them. */
async function renewDemoBuyer(db: Db, sellerId: string): Promise<DemoCredentials['buyer']> {
  const customer = await findCustomerByEmail(db, sellerId, DEMO_BUYER_EMAIL)
  if (!customer) return null
  const password = randomBytes(18).toString('base64url')
  const passwordHash = await hashPassword(password)
  await endingCustomerSessions(db, async (tx, announce) => {
    // Setting a password also takes her address as confirmed, as the seed does: a demo seeded before it did so can sign in too.
    const renewed = await setPasswordHash(tx, customer.id, passwordHash)
    await endCustomerSessions(tx, announce, renewed)
    await recordAudit(tx, actor, { action: 'stf.customer.password_reset', target: { type: 'customer', id: customer.id }, sellerId })
  })
  return { email: DEMO_BUYER_EMAIL, password }
}
