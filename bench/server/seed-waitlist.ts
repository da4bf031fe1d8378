import { randomBytes } from 'node:crypto'
import { sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { events } from '../../src/domain/catalog/events.table.js'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { ADMIN_ROLE } from '../../src/domain/staff/builtins.js'
import { resolveRoles } from '../../src/domain/staff/grants.js'
import { startStaffSession } from '../../src/domain/staff/start-staff-session.js'
import { addUserRoles, insertUser } from '../../src/domain/staff/users.repo.js'
import { hashPassword } from '../../src/platform/auth/passwords.js'
import type { Db } from '../../src/platform/db/database.js'
import { signStaffAccessToken } from '../../src/iam/staff-auth.js'

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)

/**
 * The waitlist row's data: an event of the bench seller with one inventory of `capacity` tickets
 * whose waiting list is on (the bench then sells it out and cancels it through the API), and a
 * member of staff with the `admin` role, signed in, whose access token cancels the orders through
 * the back office (the benchmark has no staff of its own; the login route would limit it).
 */
export async function seedWaitlist(app: FastifyInstance, options: { sellerId: string; capacity: number }) {
  const [event] = await app.db
    .insert(events)
    .values({ sellerId: options.sellerId, title: 'Bench waiting list', slug: `bench-waitlist-${Date.now()}`, status: 'published', source: 'bench' })
    .returning({ id: events.id })
  const [inventory] = await app.db
    .insert(inventories)
    .values({ sellerId: options.sellerId, eventId: event!.id, date: day(30), name: 'Waitlisted', price: 5000, capacity: options.capacity, waitingList: true })
    .returning({ id: inventories.id })
  return { eventId: event!.id, inventoryId: inventory!.id, staffToken: await signedInAdmin(app) }
}

/** A member of staff with the `admin` role, signed in: its access token (the benchmark has no staff of its own; the login route would limit it). */
export async function signedInAdmin(app: FastifyInstance): Promise<string> {
  const suffix = randomBytes(6).toString('hex')
  const passwordHash = await hashPassword(suffix)
  const userId = await app.db.transaction(async (tx) => {
    const roles = await resolveRoles(tx, [ADMIN_ROLE.name])
    const user = await insertUser(tx, { name: `Bench staff ${suffix}`, email: `staff-${suffix}@bench.example.com`, passwordHash })
    await addUserRoles(
      tx,
      user.id,
      roles.map((r) => r.id),
    )
    return user.id
  })
  const grant = await startStaffSession(app.db, { userId, tokenHmac: app.secrets.tokenHmac, refreshTtlSeconds: 7200 })
  return signStaffAccessToken(app, { userId, sessionId: grant.sessionId }).token
}

export type WaitlistSeed = Awaited<ReturnType<typeof seedWaitlist>>

/**
 * The waitlist row's correctness, read back from the database in one statement: the inventory's
 * capacity, sold and held (THE definition of held, tickets_held.sql), its entries by status, the
 * offers' quantities, and the offer emails written to the outbox (in all, and to distinct
 * addresses; by their kind: a sent email's text is cleared). `sinceMs` (epoch ms): the offers' times after it, at p50, p99 and the last one.
 */
export async function waitlistState(db: Db, inventoryId: string, sinceMs: number) {
  const [row] = (
    await db.execute<{
      capacity: number
      sold: number
      held: number
      statuses: Record<string, number> | null
      entries: number
      offered_quantity: number
      offer_emails: number
      offer_email_recipients: number
      offer_p50_ms: number | null
      offer_p99_ms: number | null
      offer_last_ms: number | null
    }>(sql`
      with e as (select * from waiting_entries where inventory_id = ${inventoryId}::uuid),
           offers as (select extract(epoch from offered_at) * 1000 - ${sinceMs}::double precision as ms from e where offered_at is not null),
           mails as (select m."to" from outbox_emails m where m.kind = 'stf.waiting_list_offer' and m."to" in (select email from e))
      select i.capacity, i.sold, h.held,
             (select jsonb_object_agg(status, n) from (select status, count(*)::int as n from e group by status) s) as statuses,
             (select count(*)::int from e) as entries,
             (select coalesce(sum(quantity), 0)::int from e where status = 'offered') as offered_quantity,
             (select count(*)::int from mails) as offer_emails,
             (select count(distinct "to")::int from mails) as offer_email_recipients,
             (select percentile_disc(0.5) within group (order by ms) from offers) as offer_p50_ms,
             (select percentile_disc(0.99) within group (order by ms) from offers) as offer_p99_ms,
             (select max(ms) from offers) as offer_last_ms
        from inventories i cross join lateral tickets_held(i.id, null) as h
       where i.id = ${inventoryId}::uuid`)
  ).rows
  if (!row) return null
  const ms = (value: number | null) => (value === null ? null : Math.round(Number(value)))
  return {
    capacity: Number(row.capacity),
    sold: Number(row.sold),
    held: Number(row.held),
    statuses: row.statuses ?? {},
    entries: Number(row.entries),
    offeredQuantity: Number(row.offered_quantity),
    offerEmails: Number(row.offer_emails),
    offerEmailRecipients: Number(row.offer_email_recipients),
    offerP50Ms: ms(row.offer_p50_ms),
    offerP99Ms: ms(row.offer_p99_ms),
    offerLastMs: ms(row.offer_last_ms),
  }
}

export type WaitlistState = NonNullable<Awaited<ReturnType<typeof waitlistState>>>
