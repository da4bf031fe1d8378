import { randomBytes } from 'node:crypto'
import { compactVerify, decodeProtectedHeader, importJWK } from 'jose'
import QRCode from 'qrcode'
import { describe, expect, it } from 'vitest'
import {
  MAX_SEAT_BYTES,
  MAX_VARIANT_BYTES,
  compactPayload,
  compactSeat,
  fitUtf8,
  readPayload,
  type TicketClaims,
} from '../../src/domain/checkin/ticket-code-payload.js'
import { looksSigned, signTicketCode } from '../../src/domain/checkin/ticket-codes.js'
import { KID_LENGTH, legacyKeyPair, newKeyPair, openSeed, sealSeed, thumbprint } from '../../src/domain/checkin/ticket-key-material.js'
import { newTicketIdentifier } from '../../src/domain/orders/ticket-identifier.js'

const SELLER = '6f1c2a8e-3b7d-4c5e-9f10-2a3b4c5d6e7f'
const OTHER = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
const claims: TicketClaims = { tid: 'RMEDQFECFR3IZ6QPO5Z4NC3CRQ', sid: SELLER, eid: OTHER, inv: OTHER, d: '2030-05-01', v: 'Meia' }

/** The code of `claims` as the seller's key derived from the root `7 × 32` signed it before keys were stored. */
const CODE_BEFORE_STORED_KEYS =
  'eyJhbGciOiJFZERTQSIsImtpZCI6IkJiTlpoX2FxVmRyMEdYRUVrSzItSHYyVTlPSzFfR1hBWm8xa1RHbjdDTFUifQ.eyJ0aWQiOiJSTUVEUUZFQ0ZSM0laNlFQTzVaNE5DM0NSUSIsInNpZCI6IjZmMWMyYThlLTNiN2QtNGM1ZS05ZjEwLTJhM2I0YzVkNmU3ZiIsImVpZCI6IjBhMWIyYzNkLTRlNWYtNGE2Yi04YzdkLTllMGYxYTJiM2M0ZCIsImludiI6IjBhMWIyYzNkLTRlNWYtNGE2Yi04YzdkLTllMGYxYTJiM2M0ZCIsImQiOiIyMDMwLTA1LTAxIiwidiI6Ik1laWEifQ.za-UpDzBa69w2cu8sN6MziV1J1NHFLzQYMQiKheWRknhNBnDRtWIDAj9HaMYx7mLvpMxWB5uiBPn36bXvAl5BQ'

const stored = () => {
  const pair = newKeyPair()
  return { pair, key: { kid: thumbprint(pair.x).slice(0, KID_LENGTH), legacy: false, privateKey: pair.privateKey } }
}

async function verified(code: string, x: string) {
  const { payload } = await compactVerify(code, await importJWK({ kty: 'OKP', crv: 'Ed25519', x }, 'EdDSA'), { algorithms: ['EdDSA'] })
  return payload
}

describe('a code of a stored key', () => {
  it('is a compact JWS with an 8-character kid that jose verifies with the JWK, its compact payload read back as the claims', async () => {
    const { pair, key } = stored()
    const code = signTicketCode(key, claims)
    expect(looksSigned(code)).toBe(true)
    expect(decodeProtectedHeader(code)).toEqual({ alg: 'EdDSA', kid: key.kid })
    expect(key.kid).toHaveLength(8)
    expect(readPayload(await verified(code, pair.x), SELLER)).toEqual(claims)
    expect(signTicketCode(key, claims)).toBe(code)
  })

  it('is at most 280 characters with the longest variant and seat, and fits QR version 12 at error correction M', () => {
    const { key } = stored()
    const longest = {
      ...claims,
      tid: newTicketIdentifier(),
      v: 'Meia-entrada com comprovação na porta ✓'.repeat(5),
      s: ['Balcão Nobre Superior Ç', 'Fila 10 esquerda', '1234567890'] as [string, string, string],
    }
    expect(compactSeat(longest.s)).toHaveLength(MAX_SEAT_BYTES)
    const code = signTicketCode(key, longest)
    expect(code.length).toBeLessThanOrEqual(280)
    expect(QRCode.create(code, { errorCorrectionLevel: 'M' }).version).toBeLessThanOrEqual(12)
    const plain = signTicketCode(key, { ...claims, v: null })
    expect(plain.length).toBeLessThan(210)
    // Before: 448 characters, QR version 16 at L.
    expect(QRCode.create(CODE_BEFORE_STORED_KEYS, { errorCorrectionLevel: 'M' }).version).toBeGreaterThan(12)
  })

  it("cuts a long variant's name at a whole character, marked with …", () => {
    const cut = fitUtf8('Meia-entrada estudante com carteirinha ✓✓✓', MAX_VARIANT_BYTES)
    expect(cut.length).toBeLessThanOrEqual(MAX_VARIANT_BYTES)
    expect(cut.toString('utf8')).toMatch(/^Meia-entrada estudante com cart.*…$/)
    expect(fitUtf8('Meia', MAX_VARIANT_BYTES).toString()).toBe('Meia')
  })

  it('falls back to the JSON layout for a ticket the compact one cannot carry, and still reads back', async () => {
    const { pair, key } = stored()
    for (const odd of [
      { ...claims, tid: 'NOT-A-BASE32-IDENTIFIER' },
      { ...claims, d: '2199-12-31' },
    ]) {
      expect(compactPayload(odd)).toBeNull()
      expect(readPayload(await verified(signTicketCode(key, odd), pair.x), SELLER)).toEqual(odd)
    }
  })

  it('carries a seat as zone, row and number, reads it back, and cuts a long one at whole characters within 24 bytes', async () => {
    const { pair, key } = stored()
    const seated: TicketClaims = { ...claims, s: ['Plateia', 'A', '7'] }
    expect(readPayload(await verified(signTicketCode(key, seated), pair.x), SELLER)).toEqual(seated)
    const long: TicketClaims = { ...claims, s: ['Balcão Nobre', 'Fila Ç 10', '123'] }
    const seat = compactSeat(long.s!)
    expect(seat.length).toBeLessThanOrEqual(MAX_SEAT_BYTES)
    expect(readPayload(await verified(signTicketCode(key, long), pair.x), SELLER)).toEqual({ ...claims, s: ['Balcão …', 'Fila …', '123'] })
    // The legacy key's JSON layout carries the whole seat.
    const legacy = legacyKeyPair(Buffer.alloc(32, 7), SELLER)
    const json = signTicketCode({ kid: thumbprint(legacy.x), legacy: true, privateKey: legacy.privateKey }, long)
    expect(readPayload(await verified(json, legacy.x), SELLER)).toEqual(long)
  })

  it('reads nothing of a JSON payload of another seller', () => {
    expect(readPayload(Buffer.from(JSON.stringify(claims)), OTHER)).toBeNull()
  })
})

describe('the legacy key', () => {
  it('signs, byte for byte, the very code it printed before keys were stored', () => {
    const pair = legacyKeyPair(Buffer.alloc(32, 7), SELLER)
    expect(signTicketCode({ kid: thumbprint(pair.x), legacy: true, privateKey: pair.privateKey }, claims)).toBe(CODE_BEFORE_STORED_KEYS)
  })
})

describe('a sealed seed', () => {
  it('opens with its key-encryption key and row only, and shows no byte of the seed', () => {
    const kek = randomBytes(32)
    const { seed } = newKeyPair()
    const sealed = sealSeed(kek, 'row-1', seed)
    expect(openSeed(kek, 'row-1', sealed)).toEqual(seed)
    expect(sealed).not.toContain(seed.toString('base64url').slice(0, 12))
    expect(() => openSeed(randomBytes(32), 'row-1', sealed)).toThrow()
    expect(() => openSeed(kek, 'row-2', sealed)).toThrow()
    expect(sealSeed(kek, 'row-1', seed)).not.toBe(sealed)
  })
})
