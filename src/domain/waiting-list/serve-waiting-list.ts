import { inArray } from 'drizzle-orm'
import type { Logger } from 'pino'
import { hashOpaqueToken, newOpaqueToken } from '../../platform/auth/opaque-token.js'
import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { enqueueEmails } from '../../platform/mail/outbox.repo.js'
import { jitteredDelayMs } from '../../platform/outbox/backoff.js'
import type { OutboxChannel } from '../../platform/outbox/worker.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { waitingListOfferEmail, type EmailSeller } from '../customers/customer-emails.js'
import { sellers } from '../sellers/sellers.table.js'
import { recordWebhookEvents, type WebhookEventInput } from '../webhooks/webhook-events.js'
import { entryEventData, toWaitingEntryView, type WaitingEntryView } from './waiting-entry-view.js'
import {
  claimTurns,
  deleteTurn,
  entriesByIds,
  findEntry,
  purgeTurns,
  queueSweepTurns,
  retryTurn,
  serveQueue,
  setTokenHashes,
  type ServeOutcome,
  type Turn,
} from './waiting-list.repo.js'

/** Offers made per transaction: the inventory's locks are never held for long, however long the queue. */
const OFFERS_PER_CALL = 100
const TURN_LEASE_SECONDS = 60

export type WaitingListServer = {
  /** Serves one inventory's queue now; answers the offers made. */
  serve(inventoryId: string): Promise<number>
  /**
   * Queues a turn for every queue with something that no change announced (holds that simply ran
   * out, offers past their time), then serves every turn due; answers the offers made.
   */
  sweep(): Promise<number>
  /** The back office's offer out of turn (docs/waiting-list.md). */
  offerNow(entryId: string, actor: AuditActor): Promise<WaitingEntryView>
  /** The outbox channel that serves turns, leased like every outbox row: every process may serve. */
  channel: OutboxChannel<Turn, number>
}

export type WaitingListServerOptions = {
  db: Db
  tokenHmac: Buffer
  logger: Logger
  /** How often a process sweeps (docs/waiting-list.md: tickets reach the queue within a minute). */
  sweepMs: number
}

/**
 * Serving the waiting lists: who gets the tickets is decided by the database
 * (sql/serve_waiting_list.sql, under the inventory's locks); this mints each offer's token, and
 * queues its email and its `waiting_list.offered` event (and `waiting_list.expired` for offers
 * that ran out) in the same transaction, so an offer is never made without them.
 */
export function createWaitingListServer(options: WaitingListServerOptions): WaitingListServer {
  const { db, tokenHmac, logger } = options

  /** One call of serve_waiting_list and what follows from it, in one transaction; answers the offers made and the entries changed. */
  const serveOnce = (inventoryId: string, entryId: string | null = null) =>
    db.transaction(async (tx) => {
      const changed = await serveQueue(tx, inventoryId, OFFERS_PER_CALL, entryId)
      const ids = (outcome: ServeOutcome) => changed.filter((c) => c.outcome === outcome).map((c) => c.entryId)
      const offered = ids('offered')
      const tokens = new Map(offered.map((id) => [id, newOpaqueToken()]))
      await setTokenHashes(tx, new Map([...tokens].map(([id, token]) => [id, hashOpaqueToken(tokenHmac, token)])))
      const entries = await entriesByIds(tx, [...offered, ...ids('expired')])
      if (entries.length > 0) {
        const sellerIds = [...new Set(entries.map((e) => e.sellerId))]
        const sellerRows = await tx
          .select({ id: sellers.id, name: sellers.name, storefrontUrl: sellers.storefrontUrl, locale: sellers.locale, timezone: sellers.timezone })
          .from(sellers)
          .where(inArray(sellers.id, sellerIds))
        const sellerOf = new Map(
          sellerRows.map((s): [string, EmailSeller] => [
            s.id,
            { name: s.name, storefrontUrl: s.storefrontUrl, settings: { locale: s.locale, timezone: s.timezone } },
          ]),
        )
        await enqueueEmails(
          tx,
          entries
            .filter((e) => tokens.has(e.id))
            .map((e) =>
              waitingListOfferEmail(
                sellerOf.get(e.sellerId)!,
                { email: e.email, name: e.name, quantity: e.quantity, offeredAt: e.offeredAt ?? new Date(), offerExpiresAt: e.offerExpiresAt! },
                tokens.get(e.id)!,
              ),
            ),
        )
        for (const sellerId of sellerIds) {
          const events = entries
            .filter((e) => e.sellerId === sellerId)
            .map(
              (e): WebhookEventInput => ({
                type: e.status === 'offered' ? 'waiting_list.offered' : 'waiting_list.expired',
                data: entryEventData(e),
                orderingKey: e.id,
              }),
            )
          await recordWebhookEvents(tx, sellerId, events)
        }
      }
      return { offered: offered.length, changed }
    })

  async function serve(inventoryId: string): Promise<number> {
    let offers = 0
    for (;;) {
      const { offered } = await serveOnce(inventoryId)
      offers += offered
      if (offered < OFFERS_PER_CALL) return offers
    }
  }

  const retryInMs = (turn: Turn) => (turn.attempts >= 10 ? null : jitteredDelayMs(turn.attempts, 1000, 60_000))

  /** A served turn is deleted; a failed one is tried again after a backoff (the worker logs it). */
  const settle = (turn: Turn, error: string | null, retryIn: number | null) =>
    error === null ? deleteTurn(db, turn.id) : retryTurn(db, turn.id, error.slice(0, 500), retryIn)

  async function runTurn(turn: Turn): Promise<number> {
    try {
      const offers = await serve(turn.inventoryId)
      await settle(turn, null, null)
      return offers
    } catch (error) {
      logger.warn({ turnId: turn.id, inventoryId: turn.inventoryId, err: error }, 'waiting list turn failed')
      await settle(turn, error instanceof Error ? error.message : String(error), retryInMs(turn))
      throw error
    }
  }

  let lastSweep = 0
  const sweepDue = async () => {
    if (Date.now() - lastSweep < options.sweepMs) return
    lastSweep = Date.now()
    await queueSweepTurns(db)
  }

  return {
    serve,
    async sweep() {
      lastSweep = Date.now()
      await queueSweepTurns(db)
      let offers = 0
      // Bounded: each pass leases what is due now; turns queued meanwhile by these offers are served too.
      for (let pass = 0; pass < 100; pass++) {
        const turns = await claimTurns(db, 50, TURN_LEASE_SECONDS)
        if (turns.length === 0) break
        for (const turn of turns) offers += await runTurn(turn)
      }
      return offers
    },
    async offerNow(entryId, actor) {
      const entry = await findEntry(db, null, entryId)
      if (!entry) throw new AppError('not_found')
      if (entry.status !== 'waiting') throw new AppError('entry_not_waiting')
      const { changed } = await serveOnce(entry.inventoryId, entry.id)
      const outcome = changed.find((c) => c.entryId === entry.id)?.outcome
      if (outcome === 'short') throw new AppError('insufficient_inventory', { details: { inventory_id: entry.inventoryId } })
      if (outcome !== 'offered') {
        // Still waiting (its event is not on sale), or expired with its queue (its date has passed): closed.
        const now = await findEntry(db, null, entryId)
        throw new AppError(now?.status === 'waiting' || outcome === 'expired' ? 'waiting_list_closed' : 'entry_not_waiting')
      }
      await recordAudit(db, actor, { action: 'adm.waiting_list.offered', target: { type: 'waiting_entry', id: entry.id }, sellerId: entry.sellerId })
      return toWaitingEntryView((await findEntry(db, null, entryId))!)
    },
    channel: {
      kind: 'waiting_list',
      batchSize: 20,
      concurrency: 1,
      async claim(limit) {
        await sweepDue()
        return claimTurns(db, limit, TURN_LEASE_SECONDS)
      },
      send: async (turn) => ({ delivered: true, detail: await serve(turn.inventoryId) }),
      retryInMs,
      settle: (turn, outcome, retryIn) => settle(turn, outcome.delivered ? null : outcome.error, retryIn),
      purge: (days, limit) => purgeTurns(db, days, limit),
    },
  }
}
