import { createHmac, randomUUID } from 'node:crypto'

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

/** A JWT made by hand, so tests can forge what the server must refuse. `alg: 'none'` gets no signature. */
export function handMadeJwt(claims: Record<string, unknown>, options: { key?: string; alg?: 'HS256' | 'HS512' | 'none' } = {}): string {
  const alg = options.alg ?? 'HS256'
  const input = `${part({ alg, typ: 'JWT' })}.${part(claims)}`
  if (alg === 'none') return `${input}.`
  const digest = alg === 'HS256' ? 'sha256' : 'sha512'
  return `${input}.${createHmac(digest, options.key ?? 'some-other-key').update(input).digest('base64url')}`
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
