// A gate's offline check of a ticket's signed code, exactly as docs/door.md shows it: keep the two in step.
import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose'

export type TicketClaims = { tid: string; sid?: string; eid: string; inv: string; d: string; v: string | null; s?: [zone: string, row: string, number: string] }

const uuid = (b: Buffer) => b.toString('hex').replace(/(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-')
const base32 = (b: Buffer) =>
  [...b]
    .map((x) => x.toString(2).padStart(8, '0'))
    .join('')
    .concat('00')
    .match(/.{5}/g)!
    .map((n) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[Number.parseInt(n, 2)])
    .join('')

/** The claims of a ticket's code when one of the seller's keys (GET /chk/v1/keys) signed it; otherwise it throws. */
export async function verifyTicketCode(code: string, keys: JSONWebKeySet): Promise<TicketClaims> {
  const p = Buffer.from((await compactVerify(code, createLocalJWKSet(keys), { algorithms: ['EdDSA'] })).payload)
  if (p[0] !== 1) return JSON.parse(p.toString()) // the JSON layout: codes of the legacy key
  const text = (at: number) => p.subarray(at + 1, at + 1 + p[at]!).toString()
  const [v, s] = [text(51), text(52 + p[51]!)]
  const d = new Date((10957 + p.readUInt16BE(49)) * 864e5).toISOString().slice(0, 10) // days since 2000-01-01
  const seat = s ? { s: s.split('\x1f') as [string, string, string] } : {} // zone, row, number
  return { tid: base32(p.subarray(1, 17)), eid: uuid(p.subarray(17, 33)), inv: uuid(p.subarray(33, 49)), d, v: v || null, ...seat }
}
