import { sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { events } from '../../src/domain/catalog/events.table.js'
import { inventories } from '../../src/domain/catalog/inventories.table.js'
import { createDevice } from '../../src/domain/checkin/create-device.js'
import { pairDevice } from '../../src/domain/checkin/pair-device.js'
import { createCheckinList } from '../../src/domain/checkin/save-checkin-list.js'
import { findSellerById } from '../../src/domain/sellers/sellers.repo.js'
import type { Db } from '../../src/platform/db/database.js'

export type SeedCheckinOptions = {
  sellerId: string
  /** Check-in lists of the whole event to create, by name: one per scenario, so each is counted on its own. */
  lists: readonly string[]
  /** Scanner devices to create and pair. */
  devices: number
  /** The event's date in days from today (default 0: today, so that a gate admits its tickets now). */
  daysAhead?: number
}

/** Sectors of the event: a basket of one item of each, 20 tickets apiece, is 1,000 tickets bought at once. */
export const CHECKIN_SECTORS = 50

/** A date in a time zone `days` from today, `YYYY-MM-DD` (the en-CA locale writes dates that way). */
const dayIn = (timeZone: string, days: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(Date.now() + days * 86_400_000))

/**
 * The check-in row's data set: an event of the bench seller dated today in the seller's time
 * zone (so that a gate admits its tickets now; `daysAhead` later), of 50 sectors whose tickets the bench buys
 * through the storefront, check-in lists of the whole event, and scanner devices created and
 * paired through the services behind `POST /adm/v1/sellers/{id}/devices` and `POST /chk/v1/pair`
 * (the benchmark has no member of staff, and pairing is rate limited per address).
 */
export async function seedCheckin(app: FastifyInstance, options: SeedCheckinOptions) {
  const seller = await findSellerById(app.db, options.sellerId)
  if (!seller) throw new Error('no such seller')
  const [event] = await app.db
    .insert(events)
    .values({ sellerId: seller.id, title: 'Bench check-in', slug: `bench-checkin-${Date.now()}`, status: 'published', source: 'bench' })
    .returning({ id: events.id })
  const date = dayIn(seller.timezone, options.daysAhead ?? 0)
  const sectors = await app.db
    .insert(inventories)
    .values(
      Array.from({ length: CHECKIN_SECTORS }, (_, n) => ({
        sellerId: seller.id,
        eventId: event!.id,
        date,
        name: `Sector ${n + 1}`,
        price: 5000,
        capacity: 1_000_000,
      })),
    )
    .returning({ id: inventories.id })
  const actor = { type: 'system' as const }
  const lists: Record<string, string> = {}
  for (const name of options.lists) lists[name] = (await createCheckinList(app.db, { eventId: event!.id, input: { name }, actor })).id
  const tokens: string[] = []
  for (let n = 0; n < options.devices; n++) {
    const created = await createDevice(app.db, { sellerId: seller.id, name: `Bench gate ${n + 1}`, tokenHmac: app.secrets.tokenHmac, actor })
    tokens.push((await pairDevice(app.db, { pairingCode: created.pairing_code, tokenHmac: app.secrets.tokenHmac })).token)
  }
  return { eventId: event!.id, date, inventoryIds: sectors.map((s) => s.id), lists, tokens }
}

export type CheckinSeed = Awaited<ReturnType<typeof seedCheckin>>

/**
 * What a list's scans add up to, read back from the database after a scenario: how many were
 * recorded, how many admitted someone, how many tickets they admitted, and how many tickets were
 * admitted more than once (an entry that counts: successful and not annulled).
 */
export async function checkinTally(db: Db, listId: string) {
  const [row] = (
    await db.execute<{ scans: number; successful: number; tickets: number; admitted_twice: number }>(sql`
      select count(*)::int as scans,
             count(*) filter (where successful)::int as successful,
             count(distinct ticket_id) filter (where successful)::int as tickets,
             (select count(*)::int from (
                select 1 from checkins e
                 where e.list_id = ${listId}::uuid and e.successful and e.annulled_at is null and e.type = 'entry'
                 group by e.ticket_id having count(*) > 1) twice) as admitted_twice
        from checkins where list_id = ${listId}::uuid`)
  ).rows
  return { scans: Number(row!.scans), successful: Number(row!.successful), tickets: Number(row!.tickets), admitted_twice: Number(row!.admitted_twice) }
}

/*
 * The recipients' mailbox of the feed row's transfers. An offer's token reaches the recipient only
 * in the email's link, and the outbox clears an email's text once it is sent (a few milliseconds
 * later here), so the benchmark keeps a copy of each transfer offer as it is written: a table of
 * its own and a trigger on the outbox, in the benchmark's database only, dropped once read.
 */

/** Starts keeping every transfer offer's email (`stf.transfer_offered`), by recipient. */
export async function openTransferMailbox(db: Db) {
  await db.execute(sql`create table if not exists bench_transfer_mail (recipient text primary key, text text not null)`)
  await db.execute(sql`
    create or replace function bench_keep_transfer_mail() returns trigger language plpgsql as $$
    begin
      insert into bench_transfer_mail (recipient, text) values (new."to", new.text)
        on conflict (recipient) do update set text = excluded.text;
      return new;
    end $$`)
  await db.execute(sql`
    create or replace trigger bench_keep_transfer_mail after insert on outbox_emails
      for each row when (new.kind = 'stf.transfer_offered') execute function bench_keep_transfer_mail()`)
}

/** The text of the offer emailed to each of `recipients` (those that got one), by recipient. */
export async function readTransferMailbox(db: Db, recipients: readonly string[]): Promise<Record<string, string>> {
  const { rows } = await db.execute<{ recipient: string; text: string }>(
    sql`select recipient, text from bench_transfer_mail where recipient = any(${sql.param([...recipients])}::text[])`,
  )
  return Object.fromEntries(rows.map((row) => [row.recipient, row.text]))
}

/** Stops keeping them, and forgets them. */
export async function closeTransferMailbox(db: Db) {
  await db.execute(sql`drop trigger if exists bench_keep_transfer_mail on outbox_emails`)
  await db.execute(sql`drop function if exists bench_keep_transfer_mail()`)
  await db.execute(sql`drop table if exists bench_transfer_mail`)
}

/** Emails the outbox has still to send: the feed is measured once those of the transfers are out. */
export async function unsentEmails(db: Db): Promise<number> {
  const [row] = (await db.execute<{ n: number }>(sql`select count(*)::int as n from outbox_emails where status = 'pending'`)).rows
  return Number(row!.n)
}
