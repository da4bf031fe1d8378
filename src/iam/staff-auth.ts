import { randomUUID } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { StaffActor } from '../domain/staff/actor.js'
import { findStaffPrincipal } from '../domain/staff/sessions.repo.js'
import { accessTokensOf, MAX_TOKEN_LENGTH, registerAccessTokens } from '../platform/auth/access-tokens.js'
import { AppError } from '../platform/errors.js'
import { UUID_PATTERN } from '../platform/uuid.js'

/**
 * Staff authentication, shared by `/iam/v1` and `/adm/v1`.
 *
 * Staff access tokens are JWTs signed with HS256 under a key of their own
 * (`secrets.staffJwt`, derived from the root secret), issuer `boxoffice` and audience
 * `boxoffice:staff`. A customer token (another key, another audience) never passes for one.
 * They carry no permissions: `sub` (user id), `sid` (session), `jti`, `iat`, `exp`.
 *
 * Usage in a route group:
 * ```ts
 * export const backoffice: FastifyPluginAsyncZod = async (app) => {
 *   app.addHook('onRequest', authenticateStaff) // sets request.staff or answers 401
 *   app.get('/sellers', { onRequest: requirePermission('adm.sellers.read'), schema: {...} },
 *     async (request) => listSellers(app.db, ...))
 * }
 * ```
 * `authenticateStaff` reads the user and its effective permissions from the database on
 * every request, so a grant, a revocation, a deleted user, a logout or a password reset
 * applies to the very next request on every replica. `requirePermission` works as an
 * `onRequest` hook (after the group's) or as a `preHandler`.
 */

export const STAFF_TOKEN_AUDIENCE = 'boxoffice:staff'
const STAFF_JWT_NAMESPACE = 'staff'

/** The authenticated member of staff of a request. */
export type StaffPrincipal = {
  id: string
  name: string
  email: string
  /** Role names, sorted. */
  roles: readonly string[]
  /** Effective permission names: direct grants and those of every role. */
  permissions: ReadonlySet<string>
  /** The session (refresh-token family) the access token belongs to. */
  sessionId: string
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `authenticateStaff`; null on routes without it. Read it with `staffOf(request)`. */
    staff: StaffPrincipal | null
  }
}

type StaffClaims = { sub: string; sid: string; jti: string; iat: number; exp: number }

const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/i

/**
 * Registers the `staff` JWT namespace (@fastify/jwt) and the `request.staff` decorator.
 * Register once at the root, before the route groups, so every group can use it.
 * Other token kinds register their own namespace (`app.jwt.<name>`) with their own key.
 */
export const staffAuth = fp(
  async (app: FastifyInstance) => {
    await registerAccessTokens(app, {
      namespace: STAFF_JWT_NAMESPACE,
      secret: app.secrets.staffJwt,
      audience: STAFF_TOKEN_AUDIENCE,
      expiresIn: app.config.ttl.iamAccess,
      claims: ['sub', 'sid', 'jti', 'iat', 'exp'],
    })
    app.decorateRequest('staff', null)
  },
  { name: 'staff-auth' },
)

const staffJwt = (app: FastifyInstance) => accessTokensOf(app, STAFF_JWT_NAMESPACE)

/** Signs an access token for a session; answers it with its expiry in unix seconds. */
export function signStaffAccessToken(app: FastifyInstance, claims: { userId: string; sessionId: string }): { token: string; expiresAt: number } {
  const iat = Math.floor(Date.now() / 1000)
  const token = staffJwt(app).sign({ sub: claims.userId, sid: claims.sessionId, jti: randomUUID(), iat })
  return { token, expiresAt: iat + app.config.ttl.iamAccess }
}

const unauthorized = (invalidToken: boolean) =>
  new AppError('unauthorized', {
    headers: { 'www-authenticate': invalidToken ? 'Bearer realm="staff", error="invalid_token"' : 'Bearer realm="staff"' },
  })

/**
 * onRequest hook: verifies `Authorization: Bearer <access token>` (signature, algorithm,
 * issuer, audience, expiry) and loads the user, its roles and effective permissions onto
 * `request.staff`, provided the user exists and the token's session is not revoked.
 * Anything else answers 401 `unauthorized`. Never logs the token.
 */
export async function authenticateStaff(request: FastifyRequest): Promise<void> {
  const header = request.headers.authorization
  if (!header) throw unauthorized(false)
  const match = header.length <= MAX_TOKEN_LENGTH ? BEARER.exec(header) : null
  if (!match) throw unauthorized(true)
  let claims: StaffClaims
  try {
    claims = staffJwt(request.server).verify<StaffClaims>(match[1]!)
  } catch {
    throw unauthorized(true)
  }
  if (typeof claims.sub !== 'string' || !UUID_PATTERN.test(claims.sub) || typeof claims.sid !== 'string' || !UUID_PATTERN.test(claims.sid)) {
    throw unauthorized(true)
  }
  const principal = await findStaffPrincipal(request.server.db, claims.sub, claims.sid)
  if (!principal) throw unauthorized(true)
  request.staff = {
    id: principal.id,
    name: principal.name,
    email: principal.email,
    roles: principal.roles,
    permissions: new Set(principal.permissions),
    sessionId: claims.sid,
  }
}

/** The authenticated member of staff; 401 when `authenticateStaff` did not run. */
export function staffOf(request: FastifyRequest): StaffPrincipal {
  if (!request.staff) throw unauthorized(false)
  return request.staff
}

/** The caller as services take it: id, effective permissions and the trace id for the audit log. */
export function staffActorOf(request: FastifyRequest): StaffActor {
  const staff = staffOf(request)
  return { id: staff.id, permissions: staff.permissions, traceId: request.id }
}

export type RequirePermissionOptions = {
  /** Lets a caller through without the permission when this answers true (e.g. reading itself). */
  unless?: (request: FastifyRequest, staff: StaffPrincipal) => boolean
}

/**
 * A hook that answers 403 `forbidden` unless the caller holds `permission` (401 when no
 * staff is authenticated). Use after `authenticateStaff`, as `onRequest` or `preHandler`.
 */
export function requirePermission(permission: string, options: RequirePermissionOptions = {}) {
  return async function requireStaffPermission(request: FastifyRequest): Promise<void> {
    const staff = staffOf(request)
    if (staff.permissions.has(permission)) return
    if (options.unless?.(request, staff)) return
    throw new AppError('forbidden')
  }
}
