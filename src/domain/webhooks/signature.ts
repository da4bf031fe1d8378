import { createHmac, randomBytes } from 'node:crypto'

/** A new salt for an endpoint's secret: 16 random bytes, base64url. */
export const newSecretSalt = () => randomBytes(16).toString('base64url')

/**
 * An endpoint's signing secret: `whsec_` and 32 bytes (base64url) made from its salt under the
 * server's key, so that it can be shown when made and used to sign, but is stored nowhere.
 */
export const endpointSecret = (key: Buffer, salt: string) => `whsec_${createHmac('sha256', key).update(salt).digest('base64url')}`

/**
 * `Boxoffice-Signature`: `t=<unix seconds>,v1=<hex HMAC-SHA-256 of "<t>.<body>">`, with one `v1=`
 * per secret (two while a rotated secret still signs). The HMAC's key is the secret as shown.
 */
export function signatureHeader(secrets: readonly string[], timestamp: number, body: string): string {
  const signed = `${timestamp}.${body}`
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${createHmac('sha256', secret).update(signed).digest('hex')}`)].join(',')
}
