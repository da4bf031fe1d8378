import type { TicketKeyRow } from './ticket-keys.repo.js'

/** A seller's signing key as the back office shows it: the public JWK and its life. */
export type TicketKeyView = {
  kid: string
  kty: 'OKP'
  crv: 'Ed25519'
  x: string
  active: boolean
  legacy: boolean
  created_at: string
  retired_at: string | null
}

export const toTicketKeyView = (row: TicketKeyRow): TicketKeyView => ({
  kid: row.kid,
  kty: 'OKP',
  crv: 'Ed25519',
  x: row.x,
  active: row.active,
  legacy: row.legacy,
  created_at: row.createdAt.toISOString(),
  retired_at: row.retiredAt?.toISOString() ?? null,
})
