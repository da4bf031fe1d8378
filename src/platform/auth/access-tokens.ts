import fastifyJwt, { type JWT } from '@fastify/jwt'
import type { FastifyInstance } from 'fastify'

/** The issuer of every access token this API signs; each kind of token has an audience of its own. */
export const TOKEN_ISSUER = 'boxoffice'

/** A JWT is three base64url parts; a token (or header carrying one) longer than this is not one of ours. */
export const MAX_TOKEN_LENGTH = 4096

export type AccessTokenKind = {
  /** Where @fastify/jwt puts its signer and verifier: `app.jwt.<namespace>`. */
  namespace: string
  /** A key for this kind of token and nothing else. */
  secret: string
  audience: string
  expiresIn: number
  /** The claims a token must carry besides `iss` and `aud`. */
  claims: string[]
  /** More verifier options, e.g. its cache. */
  verify?: { cache: number; cacheTTL: number }
}

/**
 * Registers one kind of access token as a @fastify/jwt namespace: HS256 only, its issuer and
 * audience set when signing and required when verifying, so that no token of another kind (another
 * key, another audience) ever passes for one of this kind.
 */
export async function registerAccessTokens(app: FastifyInstance, kind: AccessTokenKind): Promise<void> {
  await app.register(fastifyJwt, {
    namespace: kind.namespace,
    secret: kind.secret,
    sign: { algorithm: 'HS256', iss: TOKEN_ISSUER, aud: kind.audience, expiresIn: kind.expiresIn },
    verify: {
      algorithms: ['HS256'],
      allowedIss: TOKEN_ISSUER,
      allowedAud: kind.audience,
      // fast-jwt checks iss and aud only when present: require them.
      requiredClaims: ['iss', 'aud', ...kind.claims],
      ...kind.verify,
    },
  })
}

/**
 * The signer and verifier of a namespace registered by `registerAccessTokens`. With namespaces,
 * `app.jwt` maps each namespace to its own; read through a record so that this code does not depend
 * on which namespaces other modules declare.
 */
export function accessTokensOf(app: FastifyInstance, namespace: string): JWT {
  const jwt = (app.jwt as unknown as Record<string, JWT | undefined> | undefined)?.[namespace]
  if (!jwt) throw new Error(`The ${namespace} access tokens are not registered`)
  return jwt
}
