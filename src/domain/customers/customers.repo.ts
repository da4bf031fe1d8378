import { and, eq, isNull, sql } from 'drizzle-orm'
import { normalizeEmail } from '../../platform/auth/email.js'
import type { Db } from '../../platform/db/database.js'
import { customers } from './customers.table.js'

export type CustomerRow = typeof customers.$inferSelect
export type NewCustomerRow = typeof customers.$inferInsert

const sameEmail = (email: string) => sql`lower(${customers.email}) = ${normalizeEmail(email)}`

export const insertCustomer = async (db: Db, values: NewCustomerRow) => (await db.insert(customers).values(values).returning())[0]!

/** The seller's customer with this email, whatever its case; the unique index serves the lookup. */
export const findCustomerByEmail = async (db: Db, sellerId: string, email: string) =>
  (
    await db
      .select()
      .from(customers)
      .where(and(eq(customers.sellerId, sellerId), sameEmail(email)))
  )[0]

export const findCustomerById = async (db: Db, sellerId: string, id: string) =>
  (
    await db
      .select()
      .from(customers)
      .where(and(eq(customers.sellerId, sellerId), eq(customers.id, id)))
  )[0]

/**
 * Replaces a password hash, but only while it is still `expectedHash`: a rehash at login
 * must never overwrite a password reset that committed in between.
 */
export const replacePasswordHash = async (db: Db, id: string, expectedHash: string, passwordHash: string) =>
  (
    await db
      .update(customers)
      .set({ passwordHash, updatedAt: sql`now()` })
      .where(and(eq(customers.id, id), eq(customers.passwordHash, expectedHash)))
      .returning({ id: customers.id })
  ).length > 0

/**
 * Locks the customer's row while its password hash is still `expectedHash`; false once it
 * changed. A sign-in holds it until commit, so that a password reset either comes first (and
 * the sign-in fails) or comes after (and revokes the new session).
 */
export const lockPasswordHash = async (db: Db, id: string, expectedHash: string) =>
  (
    await db
      .select({ id: customers.id })
      .from(customers)
      .where(and(eq(customers.id, id), eq(customers.passwordHash, expectedHash)))
      .for('update')
  ).length > 0

/** Sets a new password and, since the link that allowed it reached the inbox, confirms the address. */
export const setPasswordHash = async (db: Db, id: string, passwordHash: string) =>
  (
    await db
      .update(customers)
      .set({ passwordHash, emailVerifiedAt: sql`coalesce(${customers.emailVerifiedAt}, now())`, updatedAt: sql`now()` })
      .where(eq(customers.id, id))
      .returning()
  )[0]!

/**
 * Confirms the address (once: a later proof keeps the first date). Answers the customer and
 * whether this was the first proof; only then, with `clearPassword`, the password set at
 * registration is dropped too (whoever chose it never showed they own the inbox).
 */
export async function confirmEmail(db: Db, id: string, { clearPassword }: { clearPassword: boolean }) {
  const [first] = await db
    .update(customers)
    .set({ emailVerifiedAt: sql`now()`, updatedAt: sql`now()`, ...(clearPassword ? { passwordHash: null } : {}) })
    .where(and(eq(customers.id, id), isNull(customers.emailVerifiedAt)))
    .returning()
  if (first) return { customer: first, firstProof: true }
  const [customer] = await db.select().from(customers).where(eq(customers.id, id))
  return { customer: customer!, firstProof: false }
}
