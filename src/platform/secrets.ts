import { hkdfSync, randomBytes } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { Config } from './config.js'

export type Secrets = Readonly<{
  /** Signs staff access tokens (HS256): a key of its own, so no other token can pass for one. */
  staffJwt: string
  /** Signs customer access tokens (HS256): a key of its own, so no other token can pass for one. */
  customerJwt: string
  /** Keys the HMAC under which API keys and opaque tokens are stored. */
  tokenHmac: Buffer
  /** Keys the HMAC that makes each webhook endpoint's signing secret from its salt, so the database alone never reveals one. */
  webhookSecrets: Buffer
  /**
   * The root from which each seller's legacy Ed25519 key was derived, before keys were stored: a
   * seller's first keys import it, so codes printed before still verify (checkin/ticket-keys.ts).
   */
  ticketCodes: Buffer
  /** Seals the tickets' signing keys stored in the database (AES-256-GCM); see `ticketKeysSecret`. */
  ticketKeys: Buffer
  /** Where `ticketKeys` comes from: `JWT_SECRET` only with DATABASE_URL and no TICKET_KEYS_SECRET (a warning at start). */
  ticketKeysSource: 'TICKET_KEYS_SECRET' | 'data-dir' | 'JWT_SECRET'
}>

/**
 * One root secret, `JWT_SECRET`, from which each use derives its own key (HKDF), so a key
 * leaked from one use does not open another. With the embedded database and no
 * `JWT_SECRET`, the root is generated once and kept in the data folder.
 */
export async function resolveSecrets(config: Config): Promise<Secrets> {
  const root = config.jwtSecret ?? (await embeddedSecret(config.dataDir, 'jwt-secret'))
  const derive = (label: string, secret = root) => Buffer.from(hkdfSync('sha256', secret, 'boxoffice', label, 32))
  const [ticketKeysSecret, ticketKeysSource] = await resolveTicketKeysSecret(config, root)
  return Object.freeze({
    staffJwt: derive('staff-jwt').toString('base64url'),
    customerJwt: derive('customer-jwt').toString('base64url'),
    tokenHmac: derive('token-hmac'),
    webhookSecrets: derive('webhook-secrets'),
    ticketCodes: derive('ticket-codes'),
    ticketKeys: derive('ticket-keys', ticketKeysSecret),
    ticketKeysSource,
  })
}

/**
 * The secret that seals the tickets' signing keys, a secret of its own so that changing
 * `JWT_SECRET` (after a leak) changes no ticket's code: `TICKET_KEYS_SECRET`; unset with the
 * embedded database, one generated once into the data folder; unset with DATABASE_URL (replicas
 * share no folder), `JWT_SECRET` itself. Then changing `JWT_SECRET` would leave the stored keys
 * sealed under the old one: whoever changes it sets `TICKET_KEYS_SECRET` to the old value first.
 */
async function resolveTicketKeysSecret(config: Config, root: string): Promise<[string, Secrets['ticketKeysSource']]> {
  if (config.ticketKeysSecret) return [config.ticketKeysSecret, 'TICKET_KEYS_SECRET']
  if (!config.databaseUrl) return [await embeddedSecret(config.dataDir, 'ticket-keys-secret'), 'data-dir']
  return [root, 'JWT_SECRET']
}

async function embeddedSecret(dataDir: string, name: string): Promise<string> {
  const file = path.resolve(dataDir, name)
  try {
    const existing = (await readFile(file, 'utf8')).trim()
    if (existing.length >= 32) return existing
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  await mkdir(dataDir, { recursive: true })
  const secret = randomBytes(48).toString('base64url')
  await writeFile(file, `${secret}\n`, { mode: 0o600 })
  return secret
}
