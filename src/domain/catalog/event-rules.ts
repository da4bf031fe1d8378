import { randomUUID } from 'node:crypto'
import { AppError } from '../../platform/errors.js'
import { UUID_PATTERN } from '../../platform/uuid.js'

/** Lower-case letters and digits in groups joined by single hyphens, e.g. `rock-in-rio-2026`. */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
export const SLUG_MAX_LENGTH = 100

/**
 * The storefront finds an event by id or by slug (`/stf/v1/events/{id_or_slug}`), so a slug
 * shaped like a uuid would be ambiguous.
 */
export const isUuidShaped = (slug: string) => UUID_PATTERN.test(slug)

/**
 * The slug of a title: accents stripped, lower case, every run of other characters one
 * hyphen, at most SLUG_MAX_LENGTH characters. `event` when nothing is left.
 */
export function slugify(title: string): string {
  let slug = title
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/ß/g, 'ss')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  // Room for a `-N` suffix; cut at the last hyphen that fits, where there is one.
  const max = SLUG_MAX_LENGTH - 4
  if (slug.length > max) {
    const cut = slug.slice(0, max + 1)
    const hyphen = cut.lastIndexOf('-')
    slug = hyphen > 0 ? cut.slice(0, hyphen) : cut.slice(0, max)
  }
  if (!slug) return 'event'
  return isUuidShaped(slug) ? `event-${slug}` : slug
}

/** `base` when free, else `base-2`, `base-3`, ...: the first that `taken` does not hold. */
export function firstFreeSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`
    if (!taken.has(candidate)) return candidate
  }
}

/**
 * Gives each item of a list (event attributes, images) its id: a kept item names the id it
 * already has, a new one gets a fresh uuid. Naming an id the list does not hold is a 400.
 */
export function withIds<T extends { id?: string | undefined }>(
  items: readonly T[],
  existingIds: readonly string[],
  field: string,
): (Omit<T, 'id'> & { id: string })[] {
  const known = new Set(existingIds)
  const seen = new Set<string>()
  const details: { path: string; message: string }[] = []
  const result = items.map((item, index) => {
    const { id, ...rest } = item
    if (id !== undefined) {
      if (!known.has(id)) details.push({ path: `${field}.${index}.id`, message: `is not the id of one of this event's ${field}` })
      else if (seen.has(id)) details.push({ path: `${field}.${index}.id`, message: 'is given twice' })
      seen.add(id)
    }
    return { ...rest, id: id ?? randomUUID() }
  })
  if (details.length > 0) throw new AppError('validation_error', { details })
  return result
}
