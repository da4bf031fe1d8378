import { createHmac } from 'node:crypto'

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
