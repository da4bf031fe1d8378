import { z } from 'zod'

export const TAGS = ['backoffice']
/** Every back-office route: `Authorization: Bearer <access_token>` of a member of staff. */
export const STAFF_SECURITY = [{ staffBearer: [] }]

/** Instants in responses and (bounded) in requests: one definition for every group. */
export { ZInstant, ZInstantInput } from '../platform/http/schemas.js'

export const isoOrNull = (date: Date | null) => (date ? date.toISOString() : null)

export const dateOrNull = (value: string | null | undefined) => (value === undefined ? undefined : value === null ? null : new Date(value))

/** A name shown to people: trimmed, 1..200 characters. */
export const ZName = z.string().trim().min(1).max(200)

/**
 * Affiliate and coupon codes, typed by people and sent in headers: letters, digits, `-` and
 * `_`, 1..64 characters, compared without regard to case.
 */
export const ZCode = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'must be 1 to 64 letters, digits, "-" or "_", starting with a letter or digit')

/** An http(s) URL without query or fragment. */
export const ZHttpUrl = z
  .url({ protocol: /^https?$/, message: 'must be an http or https URL' })
  .max(2000)
  .refine((value) => !/[?#]/.test(value), 'must not have a query or fragment')

/** At least one field: an empty update is a mistake, not a no-op. */
export const atLeastOneField = (value: Record<string, unknown>) => Object.values(value).some((v) => v !== undefined)
export const AT_LEAST_ONE = { message: 'give at least one field to change' }
