// A gate's offline check of a ticket's signed code, exactly as the README shows it: keep the two in step.
import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose'

export type TicketClaims = { tid: string; sid: string; eid: string; inv: string; d: string; v: string | null }

/** The claims of a ticket's code when one of the seller's keys (GET /chk/v1/keys) signed it; otherwise it throws. */
export async function verifyTicketCode(code: string, keys: JSONWebKeySet): Promise<TicketClaims> {
  const { payload } = await compactVerify(code, createLocalJWKSet(keys), { algorithms: ['EdDSA'] })
  return JSON.parse(new TextDecoder().decode(payload))
}
