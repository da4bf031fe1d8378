import { calculateJwkThumbprint, compactVerify, decodeProtectedHeader, importJWK } from 'jose'
import { describe, expect, it } from 'vitest'
import { createTicketCodes, looksSigned, type TicketClaims } from '../../src/domain/checkin/ticket-codes.js'

const SELLER = '6f1c2a8e-3b7d-4c5e-9f10-2a3b4c5d6e7f'
const OTHER = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
const claims: TicketClaims = { tid: 'RMEDQFECFR3IZ6QPO5Z4NC3CRQ', sid: SELLER, eid: OTHER, inv: OTHER, d: '2030-05-01', v: 'Meia' }

describe('ticket codes', () => {
  const codes = createTicketCodes(Buffer.alloc(32, 7))

  it('are compact JWS that jose verifies with the published key, EdDSA, its RFC 7638 thumbprint as kid', async () => {
    const code = codes.sign(claims)
    expect(looksSigned(code)).toBe(true)
    const [jwk] = codes.publicKeys(SELLER)
    expect(jwk!.kid).toBe(await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: jwk!.x }))
    expect(decodeProtectedHeader(code)).toEqual({ alg: 'EdDSA', kid: jwk!.kid })
    const { payload } = await compactVerify(code, await importJWK({ kty: 'OKP', crv: 'Ed25519', x: jwk!.x }, 'EdDSA'), { algorithms: ['EdDSA'] })
    expect(JSON.parse(new TextDecoder().decode(payload))).toEqual(claims)
    expect(await codes.verify(SELLER, code)).toEqual(claims)
  })

  it('are the same on every signing, and differ between sellers and between root secrets', async () => {
    expect(codes.sign(claims)).toBe(codes.sign(claims))
    expect(codes.publicKeys(OTHER)[0]!.kid).not.toBe(codes.publicKeys(SELLER)[0]!.kid)
    const otherRoot = createTicketCodes(Buffer.alloc(32, 8))
    expect(otherRoot.publicKeys(SELLER)[0]!.x).not.toBe(codes.publicKeys(SELLER)[0]!.x)
    expect(await codes.verify(SELLER, otherRoot.sign(claims))).toBeNull()
  })

  it('verify nothing but a code of this seller signed by its key', async () => {
    const code = codes.sign(claims)
    const [header, payload, signature] = code.split('.') as [string, string, string]
    const forged = Buffer.from(JSON.stringify({ ...claims, tid: 'SOMEONEELSE' })).toString('base64url')
    expect(await codes.verify(SELLER, `${header}.${forged}.${signature}`)).toBeNull()
    expect(await codes.verify(OTHER, code)).toBeNull()
    expect(await codes.verify(OTHER, codes.sign({ ...claims, sid: SELLER }))).toBeNull()
    expect(await codes.verify(SELLER, `${header}.${payload}.`)).toBeNull()
    expect(await codes.verify(SELLER, 'not.a.code')).toBeNull()
  })
})
