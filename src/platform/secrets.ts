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
  /** The root from which each seller's Ed25519 key for tickets' signed codes is derived (checkin/ticket-codes.ts). */
  ticketCodes: Buffer
}>

/**
 * One root secret, `JWT_SECRET`, from which each use derives its own key (HKDF), so a key
 * leaked from one use does not open another. With the embedded database and no
 * `JWT_SECRET`, the root is generated once and kept in the data folder.
 */
export async function resolveSecrets(config: Config): Promise<Secrets> {
  const root = config.jwtSecret ?? (await embeddedSecret(config.dataDir))
  const derive = (label: string) => Buffer.from(hkdfSync('sha256', root, 'boxoffice', label, 32))
  return Object.freeze({
    staffJwt: derive('staff-jwt').toString('base64url'),
    customerJwt: derive('customer-jwt').toString('base64url'),
    tokenHmac: derive('token-hmac'),
    webhookSecrets: derive('webhook-secrets'),
    ticketCodes: derive('ticket-codes'),
  })
}

async function embeddedSecret(dataDir: string): Promise<string> {
  const file = path.resolve(dataDir, 'jwt-secret')
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
