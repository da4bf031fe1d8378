import { hashOpaqueToken, newOpaqueToken } from '../../platform/auth/opaque-token.js'

/**
 * A transfer's token: what the recipient's email link carries, the only proof of being the
 * recipient (docs/transfers.md). 256 random bits; only its keyed hash is stored
 * (`ticket_transfers.token_hash`), so a copy of the database accepts nothing.
 */
export type TransferToken = { token: string; hash: string }

const PREFIX = 'tt_'

/** The most a transfer token may be: longer is no token of ours, refused before any hashing. */
export const MAX_TRANSFER_TOKEN_LENGTH = 128

export const hashTransferToken = (tokenHmac: Buffer, token: string) => hashOpaqueToken(tokenHmac, `transfer:${token}`)

export function newTransferToken(tokenHmac: Buffer): TransferToken {
  const token = newOpaqueToken(32, PREFIX)
  return { token, hash: hashTransferToken(tokenHmac, token) }
}
