import { z } from 'zod'
import type { StaffUser } from '../domain/staff/users.repo.js'
import { PASSWORD_MAX_LENGTH } from '../platform/auth/passwords.js'
import { ZInstant } from '../platform/http/schemas.js'

export const ZLoginRequest = z
  .strictObject({
    username: z.string().min(1).max(254).describe("The user's email"),
    password: z.string().min(1).max(PASSWORD_MAX_LENGTH),
  })
  .meta({ id: 'LoginRequest' })

export const ZRefreshTokenRequest = z.strictObject({ refresh_token: z.string().min(1).max(512) }).meta({ id: 'RefreshTokenRequest' })

export const ZUserInfo = z.object({ id: z.uuid(), name: z.string(), email: z.string(), roles: z.array(z.string()) }).meta({ id: 'UserInfo' })

const tokenFields = {
  access_token: z.string().describe('Bearer token (JWT); send as `Authorization: Bearer <access_token>`'),
  refresh_token: z.string().describe('Opaque; works once: each refresh answers a new one'),
  type: z.literal('Bearer'),
  user: ZUserInfo,
}

export const ZLoginResponse = z
  .object({ ...tokenFields, expires_at: z.number().int().describe('Expiry of the access token, unix seconds') })
  .meta({ id: 'LoginResponse' })

export const ZRefreshTokenResponse = z
  .object({ ...tokenFields, expires_at: ZInstant.describe('Expiry of the access token, ISO 8601') })
  .meta({ id: 'RefreshTokenResponse' })

/** Who a member of staff is, as a sign-in answers it; `presentUser` adds the timestamps of the account. */
export const presentUserInfo = (user: StaffUser): z.infer<typeof ZUserInfo> => ({ id: user.id, name: user.name, email: user.email, roles: user.roles })
