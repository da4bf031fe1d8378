import { createHmac, randomUUID } from 'node:crypto'

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

/** The header and payload of a JWT, unverified. */
export function decodeJwt(token: string): { header: Record<string, unknown>; payload: Record<string, any> } {
  const [header, payload] = token.split('.')
  return {
    header: JSON.parse(Buffer.from(header!, 'base64url').toString('utf8')),
    payload: JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')),
  }
}

/**
 * A hand-made JWT, to test what the server refuses: any header (`alg: none` included) and
 * payload, signed with HMAC-SHA-256 under `key`, or unsigned when `key` is null.
 */
export function craftJwt(header: Record<string, unknown>, payload: Record<string, unknown>, key: string | Buffer | null): string {
  const unsigned = `${b64(header)}.${b64(payload)}`
  if (key === null) return `${unsigned}.`
  return `${unsigned}.${createHmac('sha256', key).update(unsigned).digest('base64url')}`
}

/** A JWT made by hand with the given claims, signed HS256/HS512 under `key`; `alg: 'none'` gets no signature. */
export function handMadeJwt(claims: Record<string, unknown>, options: { key?: string; alg?: 'HS256' | 'HS512' | 'none' } = {}): string {
  const alg = options.alg ?? 'HS256'
  const header = { alg, typ: 'JWT' }
  if (alg === 'none') return craftJwt(header, claims, null)
  if (alg === 'HS256') return craftJwt(header, claims, options.key ?? 'some-other-key')
  const unsigned = `${b64(header)}.${b64(claims)}`
  return `${unsigned}.${createHmac('sha512', options.key ?? 'some-other-key')
    .update(unsigned)
    .digest('base64url')}`
}

/** The claims of a customer access token, valid now unless overridden. */
export function customerClaims(overrides: Record<string, unknown>) {
  const now = Math.floor(Date.now() / 1000)
  return {
    email: 'someone@example.com',
    jti: randomUUID(),
    iat: now,
    exp: now + 900,
    iss: 'boxoffice',
    aud: 'boxoffice:customer',
    ...overrides,
  }
}
