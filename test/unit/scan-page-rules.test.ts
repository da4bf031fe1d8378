import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { ANSWER_REASONS } from '../../src/domain/checkin/checkin.table.js'
import { compactPayload } from '../../src/domain/checkin/ticket-code-payload.js'
import { signTicketCode, type TicketClaims } from '../../src/domain/checkin/ticket-codes.js'
import { KID_LENGTH, newKeyPair, thumbprint } from '../../src/domain/checkin/ticket-key-material.js'

/** The scanner page's own modules (plain browser ES modules), loaded as the page loads them; `as` loads a copy of its own. */
const pageModule = (name: string, as = '') => import(`${pathToFileURL(path.resolve(import.meta.dirname, '../../scan-page/js', name)).href}${as}`)

type Codes = { verifyCode: (code: string, keys: object[]) => Promise<Record<string, unknown> | null>; looksSigned: (text: string) => boolean }
type Verdict = { status: string; reason: string | null; why?: string; attention: boolean; list_id: string | null; ticket: Record<string, unknown> | null }
type Judge = {
  judgeScan: (facts: object) => Verdict
  whyInvalid: (known: Record<string, object | undefined>, claims: object | null) => string | null
}

let codes: Codes
let judge: Judge
beforeAll(async () => {
  codes = (await pageModule('codes.js')) as Codes
  judge = (await pageModule('judge.js')) as Judge
})

const claims: TicketClaims = {
  tid: 'RMEDQFECFR3IZ6QPO5Z4NC3CRQ',
  sid: '0b6fb2e2-7d3c-4f0a-9a43-2b7c3d5e6f70',
  eid: '1c7fb2e2-7d3c-4f0a-9a43-2b7c3d5e6f71',
  inv: '2d8fb2e2-7d3c-4f0a-9a43-2b7c3d5e6f72',
  d: '2031-05-01',
  v: 'Meia',
}

function keyAndJwk(legacy = false) {
  const pair = newKeyPair()
  const kid = legacy ? thumbprint(pair.x) : thumbprint(pair.x).slice(0, KID_LENGTH)
  return { key: { kid, legacy, privateKey: pair.privateKey }, jwk: { kid, kty: 'OKP', crv: 'Ed25519', x: pair.x, active: true } }
}

describe('the scanner page verifies a code offline (scan-page/js/codes.js)', () => {
  it('reads the claims of a compact code and of a first (JSON) code signed by a key it holds', async () => {
    const compact = keyAndJwk()
    const legacy = keyAndJwk(true)
    const { sid: _sid, ...expected } = claims
    expect(await codes.verifyCode(signTicketCode(compact.key, claims), [compact.jwk])).toEqual(expected)
    expect(await codes.verifyCode(signTicketCode(legacy.key, claims), [compact.jwk, legacy.jwk])).toMatchObject(expected)
  })

  it("reads a seated ticket's seat as [zone, row, number] from either layout, and shows it on a ticket it did not keep yet", async () => {
    const compact = keyAndJwk()
    const legacy = keyAndJwk(true)
    const seated: TicketClaims = { ...claims, s: ['Plateia', 'A', '7'] }
    const { sid: _sid, ...expected } = seated
    const read = await codes.verifyCode(signTicketCode(compact.key, seated), [compact.jwk])
    expect(read).toEqual(expected)
    expect(await codes.verifyCode(signTicketCode(legacy.key, seated), [legacy.jwk])).toMatchObject({ s: ['Plateia', 'A', '7'] })
    const list = { id: 'L1', event_id: claims.eid, inventory_ids: null, variants: null, allow_multiple_entries: false, allow_entry_after_exit: true }
    const answer = judge.judgeScan({ lists: [list], known: {}, claims: read, type: 'entry', now: new Date(2031, 4, 1, 21, 0) })
    expect(answer).toMatchObject({ status: 'ok', ticket: { seat: { zone: 'Plateia', row: 'A', number: '7' } } })
  })

  it("reads a code's version `n` (one byte after the seat in the compact layout, `n` in the JSON one), and none from a code of version 0", async () => {
    const compact = keyAndJwk()
    const legacy = keyAndJwk(true)
    for (const changed of [
      { ...claims, n: 1 },
      { ...claims, s: ['Plateia', 'A', '7'] as TicketClaims['s'], n: 255 },
      { ...claims, v: null, n: 7 },
    ]) {
      const { sid: _sid, ...expected } = changed
      expect(await codes.verifyCode(signTicketCode(compact.key, changed), [compact.jwk])).toEqual(expected)
      expect(await codes.verifyCode(signTicketCode(legacy.key, changed), [legacy.jwk])).toMatchObject({ n: changed.n })
    }
    expect(await codes.verifyCode(signTicketCode(compact.key, claims), [compact.jwk])).not.toHaveProperty('n')
  })

  it('refuses a compact payload with more than one byte after the seat', () => {
    const { readPayload } = codes as unknown as { readPayload: (bytes: Uint8Array) => object | null }
    const payload = compactPayload({ ...claims, n: 3 })!
    expect(readPayload(payload)).toMatchObject({ n: 3 })
    expect(readPayload(Buffer.concat([payload, Buffer.from([0])]))).toBeNull()
    expect(readPayload(payload.subarray(0, payload.length - 2))).toBeNull()
  })

  it('refuses a code signed by another key, a tampered one, and one whose key it does not hold', async () => {
    const mine = keyAndJwk()
    const forger = keyAndJwk()
    const code = signTicketCode(mine.key, claims)
    const [header, payload, signature] = code.split('.') as [string, string, string]
    const flipped = Buffer.from(payload, 'base64url')
    flipped[5] = flipped[5]! ^ 1
    expect(await codes.verifyCode(signTicketCode({ ...forger.key, kid: mine.key.kid }, claims), [mine.jwk])).toBeNull()
    expect(await codes.verifyCode(`${header}.${flipped.toString('base64url')}.${signature}`, [mine.jwk])).toBeNull()
    expect(await codes.verifyCode(code, [forger.jwk])).toBeNull()
    expect(await codes.verifyCode('NOT.A.CODE', [mine.jwk])).toBeNull()
    expect(codes.looksSigned(claims.tid)).toBe(false)
  })
})

describe('the scanner page judges a scan offline (scan-page/js/judge.js)', () => {
  const list = { id: 'L1', event_id: claims.eid, inventory_ids: null, variants: null, allow_multiple_entries: false, allow_entry_after_exit: true }
  const at = new Date(2031, 4, 1, 21, 0)
  const kept = (changes: object = {}) => ({
    identifier: claims.tid,
    event_id: claims.eid,
    inventory_id: claims.inv,
    date: claims.d,
    name: 'Pista',
    variant: 'Meia',
    status: 'valid',
    holder: null,
    checked_in: false,
    inside: false,
    last_checkin_at: null,
    attention: false,
    ...changes,
  })
  const verdict = (ticket: object | undefined, facts: object = {}) =>
    judge.judgeScan({ lists: [list], known: { L1: ticket }, claims: null, type: 'entry', now: at, ...facts })

  it('lets a valid ticket in once, out always, and in again after an exit', () => {
    expect(verdict(kept())).toMatchObject({ status: 'ok', reason: null, list_id: 'L1', ticket: { checked_in: true, inside: true } })
    expect(verdict(kept({ checked_in: true, inside: true }))).toMatchObject({ status: 'refused', reason: 'already_redeemed' })
    expect(verdict(kept({ checked_in: true, inside: true }), { type: 'exit' })).toMatchObject({ status: 'ok', ticket: { inside: false } })
    expect(verdict(kept({ checked_in: true, inside: false }))).toMatchObject({ status: 'ok' })
  })

  it('refuses a ticket of an unpaid order (the feed’s pending or expired) as unpaid, in and out, whatever the hour', () => {
    for (const status of ['pending', 'expired']) {
      expect(verdict(kept({ status }))).toMatchObject({ status: 'refused', reason: 'unpaid', list_id: 'L1', ticket: { status } })
      expect(verdict(kept({ status }), { type: 'exit' })).toMatchObject({ status: 'refused', reason: 'unpaid' })
      expect(verdict(kept({ status }), { now: new Date(2031, 4, 2, 7, 0) })).toMatchObject({ status: 'refused', reason: 'unpaid' })
    }
  })

  it('refuses a voided ticket, one outside its day, an unknown one; asks for attention when the ticket does', () => {
    expect(verdict(kept({ status: 'voided' }))).toMatchObject({ status: 'refused', reason: 'voided' })
    expect(verdict(kept(), { now: new Date(2031, 4, 2, 7, 0) })).toMatchObject({ status: 'refused', reason: 'invalid_time' })
    expect(verdict(kept(), { now: new Date(2031, 4, 2, 5, 0) })).toMatchObject({ status: 'ok' })
    expect(verdict(undefined)).toMatchObject({ status: 'refused', reason: 'invalid' })
    expect(verdict(kept({ attention: true }))).toMatchObject({ status: 'ok', attention: true })
  })

  it('judges by the window the feed gives (from 2 hours before the doors, the server’s), not by the device’s day', () => {
    // Doors at 19:00 in São Paulo (UTC-3) on 2031-05-01: the window opens at 17:00 there, 20:00 UTC, and closes at 06:00 the next day.
    const windowed = kept({ time: '20:00', doors_time: '19:00', entry_opens_at: '2031-05-01T20:00:00.000Z', entry_closes_at: '2031-05-02T09:00:00.000Z' })
    expect(verdict(windowed, { now: new Date('2031-05-01T19:59:59.999Z') })).toMatchObject({ status: 'refused', reason: 'invalid_time' })
    expect(verdict(windowed, { now: new Date('2031-05-01T20:00:00.000Z') })).toMatchObject({ status: 'ok', ticket: { time: '20:00' } })
    expect(verdict(windowed, { now: new Date('2031-05-02T08:59:59.999Z') })).toMatchObject({ status: 'ok' })
    expect(verdict(windowed, { now: new Date('2031-05-02T09:00:00.000Z') })).toMatchObject({ status: 'refused', reason: 'invalid_time' })
    // Exits are always allowed.
    expect(verdict(windowed, { type: 'exit', now: new Date('2031-05-01T12:00:00.000Z') })).toMatchObject({ status: 'ok' })
  })

  it('judges a code of a ticket sold since the last sync by its inventory’s window, when the feed gave one for that date', () => {
    const fresh = { tid: claims.tid, eid: claims.eid, inv: claims.inv, d: claims.d, v: null }
    const show = { date: claims.d, time: '20:00', doors_time: '19:00', entry_opens_at: '2031-05-01T20:00:00.000Z', entry_closes_at: '2031-05-02T09:00:00.000Z' }
    const scan = (now: Date, shows: object) => judge.judgeScan({ lists: [list], known: {}, claims: fresh, type: 'entry', now, shows })
    expect(scan(new Date('2031-05-01T19:00:00.000Z'), { [claims.inv]: show })).toMatchObject({
      status: 'refused',
      reason: 'invalid_time',
      ticket: { time: '20:00' },
    })
    expect(scan(new Date('2031-05-01T21:00:00.000Z'), { [claims.inv]: show })).toMatchObject({ status: 'ok', ticket: { time: '20:00', doors_time: '19:00' } })
    // A window of another date (the inventory re-dated since the code was signed) is not this ticket's: the day rule.
    expect(scan(new Date(2031, 4, 1, 12, 0), { [claims.inv]: { ...show, date: '2031-05-02' } })).toMatchObject({ status: 'ok', ticket: { time: null } })
  })

  it('refuses a ticket given to someone else (the feed’s revoked) as invalid, transferred: typed, as a code, in or out, on any list', () => {
    const fresh = { tid: claims.tid, eid: claims.eid, inv: claims.inv, d: claims.d, v: claims.v }
    const transferred = { status: 'refused', reason: 'invalid', why: 'transferred', ticket: null, list_id: null }
    expect(verdict(kept({ status: 'revoked' }))).toEqual({ ...transferred, attention: false })
    expect(verdict(kept({ status: 'revoked' }), { claims: fresh })).toMatchObject(transferred)
    expect(verdict(kept({ status: 'revoked', code_version: 2 }), { claims: { ...fresh, n: 2 }, type: 'exit' })).toMatchObject(transferred)
    // Kept on two lists, or outside its window: still told apart from an ambiguous or early ticket.
    const two = [list, { ...list, id: 'L2' }]
    const revoked = kept({ status: 'revoked' })
    expect(judge.judgeScan({ lists: two, known: { L1: revoked, L2: revoked }, claims: null, type: 'entry', now: at })).toMatchObject(transferred)
    expect(verdict(revoked, { now: new Date(2031, 4, 3) })).toMatchObject(transferred)
    // Not "not a ticket of this event": that stays for what the copy does not know.
    expect(verdict(undefined)).toMatchObject({ status: 'refused', reason: 'invalid' })
    expect(verdict(undefined)).not.toHaveProperty('why')
  })

  it('refuses a code whose n (absent: 0) is not the kept code_version modulo 256 as invalid, an older code; takes the current one', () => {
    const code = (n?: number) => ({ tid: claims.tid, eid: claims.eid, inv: claims.inv, d: claims.d, v: claims.v, ...(n === undefined ? {} : { n }) })
    const older = { status: 'refused', reason: 'invalid', why: 'older_code', ticket: null }
    expect(verdict(kept({ code_version: 1 }), { claims: code() })).toMatchObject(older)
    expect(verdict(kept({ code_version: 2 }), { claims: code(1) })).toMatchObject(older)
    expect(verdict(kept({ code_version: 2 }), { claims: code(1), type: 'exit' })).toMatchObject(older)
    expect(verdict(kept({ code_version: 2, status: 'voided' }), { claims: code(1) })).toMatchObject(older)
    expect(verdict(kept({ code_version: 2 }), { claims: code(2) })).toMatchObject({ status: 'ok', list_id: 'L1' })
    expect(verdict(kept({ code_version: 257 }), { claims: code(1) })).toMatchObject({ status: 'ok' })
    expect(verdict(kept({ code_version: 0 }), { claims: code() })).toMatchObject({ status: 'ok' })
    // A ticket kept before the feed gave its version is at version 0 (any change since came again in the feed).
    expect(verdict(kept(), { claims: code() })).toMatchObject({ status: 'ok' })
    expect(verdict(kept(), { claims: code(1) })).toMatchObject(older)
    // A typed identifier has no version: the ticket it names is judged as it is.
    expect(verdict(kept({ code_version: 3 }))).toMatchObject({ status: 'ok' })
  })

  it('says why only for a ticket it keeps: whyInvalid', () => {
    const code = { tid: claims.tid, eid: claims.eid, inv: claims.inv, d: claims.d, v: claims.v, n: 1 }
    expect(judge.whyInvalid({ L1: undefined }, code)).toBeNull()
    expect(judge.whyInvalid({ L1: kept({ status: 'revoked', code_version: 1 }) }, code)).toBe('transferred')
    expect(judge.whyInvalid({ L1: kept({ code_version: 1 }) }, code)).toBeNull()
    expect(judge.whyInvalid({ L1: kept({ code_version: 2 }) }, code)).toBe('older_code')
    expect(judge.whyInvalid({ L1: kept({ code_version: 2 }) }, null)).toBeNull()
  })

  it('lets no one in on a status it does not know (a newer feed’s)', () => {
    expect(verdict(kept({ status: 'quarantined' }))).toMatchObject({ status: 'refused', reason: 'invalid', list_id: 'L1' })
    expect(verdict(kept({ status: 'quarantined' }), { type: 'exit' })).toMatchObject({ status: 'refused', reason: 'invalid' })
  })

  it('takes a verified code of a ticket sold since the last sync on a list that covers it, and not on one that does not', () => {
    const fresh = { tid: claims.tid, eid: claims.eid, inv: claims.inv, d: claims.d, v: null }
    expect(judge.judgeScan({ lists: [list], known: {}, claims: fresh, type: 'entry', now: at })).toMatchObject({ status: 'ok', list_id: 'L1' })
    const vipOnly = { ...list, inventory_ids: ['another-inventory'] }
    expect(judge.judgeScan({ lists: [vipOnly], known: {}, claims: fresh, type: 'entry', now: at })).toMatchObject({ status: 'refused', reason: 'product' })
    const twice = [list, { ...list, id: 'L2' }]
    expect(judge.judgeScan({ lists: twice, known: {}, claims: fresh, type: 'entry', now: at })).toMatchObject({ status: 'refused', reason: 'ambiguous' })
  })
})

describe('the scanner page says every reason in words (scan-page/js/i18n.js)', () => {
  type I18n = { locale: string; t: (key: string) => string }
  /** The page's words as a browser of these languages reads them. */
  const wordsFor = async (languages: string[]) => {
    vi.stubGlobal('navigator', { languages })
    return (await pageModule('i18n.js', `?${languages.join(',')}`)) as I18n
  }
  afterEach(() => {
    vi.unstubAllGlobals()
  })

  it('in English and in Portuguese, each in its own words: unpaid is "Not paid", "Não pago"', async () => {
    const en = await wordsFor(['en-US'])
    const pt = await wordsFor(['pt-BR', 'en'])
    expect([en.locale, pt.locale]).toEqual(['en', 'pt-BR'])
    for (const reason of ANSWER_REASONS) {
      expect(en.t(`reason_${reason}`)).not.toBe(`reason_${reason}`)
      expect(pt.t(`reason_${reason}`)).not.toBe(en.t(`reason_${reason}`))
    }
    expect(en.t('reason_unpaid')).toBe('Not paid')
    expect(pt.t('reason_unpaid')).toBe('Não pago')
  })

  it('says a transferred ticket and an older code in words of their own, never as an unknown ticket', async () => {
    const en = await wordsFor(['en-GB'])
    const pt = await wordsFor(['pt-BR'])
    expect([en.t('why_transferred'), en.t('why_older_code')]).toEqual(['Transferred to someone else', 'Replaced: an older code'])
    expect([pt.t('why_transferred'), pt.t('why_older_code')]).toEqual(['Transferido para outra pessoa', 'Substituído: código antigo'])
    for (const words of [en, pt]) expect(new Set([words.t('why_transferred'), words.t('why_older_code'), words.t('reason_invalid')]).size).toBe(3)
  })
})
