import { hashOpaqueToken, newOpaqueToken } from '../../platform/auth/opaque-token.js'

/**
 * An order token opens one order for whoever holds it (docs/selling.md): a guest's order has one from
 * its checkout, and the back office can issue another, ending the first. 256 random bits; only
 * its keyed hash is stored (`orders.order_token_hash`), so a copy of the database opens nothing.
 */
export type OrderToken = { token: string; hash: string }

const PREFIX = 'ot_'

export const hashOrderToken = (tokenHmac: Buffer, token: string) => hashOpaqueToken(tokenHmac, `order:${token}`)

export function newOrderToken(tokenHmac: Buffer): OrderToken {
  const token = newOpaqueToken(32, PREFIX)
  return { token, hash: hashOrderToken(tokenHmac, token) }
}

/** The most an order token may be: longer is no token of ours, refused before any hashing. */
export const MAX_ORDER_TOKEN_LENGTH = 128
