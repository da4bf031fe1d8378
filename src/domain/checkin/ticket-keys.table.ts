import { sql } from 'drizzle-orm'
import { boolean, index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { sellerIdColumn } from '../sellers/sellers.table.js'

/**
 * A seller's Ed25519 keys that sign tickets' codes (docs/door.md). The private seed is kept sealed
 * (AES-256-GCM under the key-encryption key of `TICKET_KEYS_SECRET`, ticket-key-vault.ts), never
 * in plaintext: the database alone signs nothing. One key per seller is active and signs new
 * tickets; the others keep verifying the tickets they signed until they are retired.
 */
export const ticketSigningKeys = pgTable(
  'ticket_signing_keys',
  {
    id: uuid().primaryKey().defaultRandom(),
    sellerId: sellerIdColumn(),
    /** The JWS header's `kid`: 8 characters of the key's RFC 7638 thumbprint; a legacy key's whole thumbprint. */
    kid: text().notNull(),
    /** The public key (JWK `x`, base64url). */
    x: text().notNull(),
    /** The private seed, sealed: base64url of nonce (12 bytes), ciphertext (32) and tag (16). */
    sealedSeed: text().notNull(),
    /** Signs the seller's new tickets; exactly one of its keys is. */
    active: boolean().notNull().default(false),
    /** The key derived from `JWT_SECRET` before keys were stored: it signed the tickets whose `signing_key_id` is null. */
    legacy: boolean().notNull().default(false),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** Set when retired: it then verifies and signs nothing. */
    retiredAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    uniqueIndex('ticket_signing_keys_kid_key').on(t.sellerId, t.kid),
    uniqueIndex('ticket_signing_keys_active_key').on(t.sellerId).where(sql`${t.active}`),
    uniqueIndex('ticket_signing_keys_legacy_key').on(t.sellerId).where(sql`${t.legacy}`),
    index('ticket_signing_keys_seller_idx').on(t.sellerId, t.createdAt),
  ],
)
