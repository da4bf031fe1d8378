import { z } from 'zod'
import type { CustomerRow } from '../domain/customers/customers.repo.js'
import { COMMON_PASSWORD_MESSAGE, isCommonPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../platform/auth/passwords.js'
import { ZInstant } from '../platform/http/schemas.js'

const ZEmail = z.email().max(254).describe('Compared without regard to case')
const ZNewPassword = z
  .string()
  .min(PASSWORD_MIN_LENGTH)
  .max(PASSWORD_MAX_LENGTH)
  .refine((password) => !isCommonPassword(password), COMMON_PASSWORD_MESSAGE)
  .describe(`${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters, not one of the 3,000 most common passwords`)
const ZName = z.string().trim().min(1).max(100)
// Opaque tokens are 43 characters; the bound only keeps junk out.
const ZOpaqueToken = z.string().min(1).max(512)

export const ZCustomer = z
  .object({
    id: z.uuid(),
    email: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    email_verified: z.boolean(),
    created_at: ZInstant,
  })
  .meta({ id: 'Customer' })

export const ZRegisterRequest = z.strictObject({ email: ZEmail, password: ZNewPassword, first_name: ZName, last_name: ZName })
export const ZRegisterResponse = z.object({ customer: ZCustomer })

export const ZLoginRequest = z.strictObject({ email: ZEmail, password: z.string().min(1).max(PASSWORD_MAX_LENGTH) })

export const ZTokenPair = z
  .object({
    access_token: z.string().describe('Send as `X-Customer-Token` with the same seller credentials'),
    refresh_token: z.string().describe('Single use: `POST /stf/v1/auth/refresh` answers a new pair'),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().describe('Seconds the access token stays valid'),
    expires_at: ZInstant.describe('When the access token expires'),
    customer: ZCustomer,
  })
  .meta({ id: 'CustomerTokenPair' })

export const ZLogoutQuery = z.object({ user_id: z.uuid().describe('The customer to sign out') })
export const ZRefreshRequest = z.strictObject({ refresh_token: ZOpaqueToken })
export const ZEmailRequest = z.strictObject({ email: ZEmail })
export const ZResetPasswordRequest = z.strictObject({ token: ZOpaqueToken, password: ZNewPassword })
export const ZTokenRequest = z.strictObject({ token: ZOpaqueToken })
export const ZMessage = z.object({ message: z.string() }).meta({ id: 'Message' })

export const presentCustomer = (customer: CustomerRow): z.infer<typeof ZCustomer> => ({
  id: customer.id,
  email: customer.email,
  first_name: customer.firstName,
  last_name: customer.lastName,
  email_verified: customer.emailVerifiedAt !== null,
  created_at: customer.createdAt.toISOString(),
})
