import { z } from 'zod'
import { COMMON_PASSWORD_MESSAGE, isCommonPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../platform/auth/passwords.js'

export const ZPassword = z
  .string()
  .min(PASSWORD_MIN_LENGTH)
  .max(PASSWORD_MAX_LENGTH)
  .refine((password) => !isCommonPassword(password), COMMON_PASSWORD_MESSAGE)
  .describe(`${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters, not one of the 3,000 most common passwords`)

export const ZPasswordRecoverRequest = z.strictObject({ email: z.email().max(254) }).meta({ id: 'PasswordRecoverRequest' })

export const ZPasswordResetRequest = z
  .strictObject({
    token: z.string().min(1).max(512).describe('The `token` of the link in the recovery email'),
    password: ZPassword,
  })
  .meta({ id: 'PasswordResetRequest' })

export const RECOVER_MESSAGE = 'If an account uses this email, a link to reset its password is on its way'
export const RESET_MESSAGE = 'Your password was changed; sign in with the new one'
