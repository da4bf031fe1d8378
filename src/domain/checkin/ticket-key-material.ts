import { createCipheriv, createDecipheriv, createHash, createPrivateKey, createPublicKey, hkdfSync, type KeyObject, randomBytes } from 'node:crypto'

/** An Ed25519 private key in PKCS #8 DER is this fixed prefix and the 32-byte seed (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')

/** How many characters of its thumbprint a stored key's `kid` keeps: 48 bits, unique among a seller's few keys. */
export const KID_LENGTH = 8

/** A key pair made from its seed, with the public half as a JWK's `x`. */
export type KeyPair = { seed: Buffer; privateKey: KeyObject; publicKey: KeyObject; x: string }

/** The JWK thumbprint (RFC 7638) of an Ed25519 public key: the members in lexical order, SHA-256. */
export const thumbprint = (x: string) =>
  createHash('sha256')
    .update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x }))
    .digest('base64url')

export function keyPairOf(seed: Buffer): KeyPair {
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' })
  const publicKey = createPublicKey(privateKey)
  const { x } = publicKey.export({ format: 'jwk' }) as { x: string }
  return { seed, privateKey, publicKey, x }
}

/** A new key pair from 32 random bytes. */
export const newKeyPair = () => keyPairOf(randomBytes(32))

/**
 * The seller's key as it was derived from `JWT_SECRET` before keys were stored (HKDF of the
 * root and the seller's id): imported once, so the codes it signed keep verifying.
 */
export const legacyKeyPair = (root: Buffer, sellerId: string) => keyPairOf(Buffer.from(hkdfSync('sha256', root, sellerId, 'ticket-code-ed25519', 32)))

/**
 * The seed sealed with AES-256-GCM under the key-encryption key: nonce, ciphertext and tag in
 * base64url. The key's row id is the additional data, so a sealed seed copied onto another row
 * does not open.
 */
export function sealSeed(kek: Buffer, keyId: string, seed: Buffer): string {
  const nonce = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', kek, nonce).setAAD(Buffer.from(keyId))
  return Buffer.concat([nonce, cipher.update(seed), cipher.final(), cipher.getAuthTag()]).toString('base64url')
}

/** The seed of a sealed one; throws when it was sealed under another key-encryption key (or for another row). */
export function openSeed(kek: Buffer, keyId: string, sealed: string): Buffer {
  const bytes = Buffer.from(sealed, 'base64url')
  const decipher = createDecipheriv('aes-256-gcm', kek, bytes.subarray(0, 12)).setAAD(Buffer.from(keyId))
  decipher.setAuthTag(bytes.subarray(bytes.length - 16))
  return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()])
}
