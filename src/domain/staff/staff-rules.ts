import type { ErrorDetail } from '../../platform/errors.js'

/**
 * Pure rules of staff identity and access, without I/O.
 */

/** Escapes `%`, `_` and `\` so that user input matches literally inside ILIKE. */
export const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** Names in `wanted` that `known` lacks, in the order asked, each once. */
export function unknownNames(wanted: readonly string[], known: Iterable<string>): string[] {
  const have = new Set(known)
  return [...new Set(wanted.filter((name) => !have.has(name)))]
}

/** Validation details naming each unknown entry of a body list, e.g. `roles.1`. */
export function unknownNameDetails(field: string, wanted: readonly string[], unknown: readonly string[], kind: string): ErrorDetail[] {
  const missing = new Set(unknown)
  return wanted.flatMap((name, index) => (missing.has(name) ? [{ path: `${field}.${index}`, message: `no ${kind} is named "${name}"` }] : []))
}

/**
 * Privilege escalation guard: a caller may only confer permissions it holds itself, and
 * may only manage a user whose permissions it holds all of (so that, say, a support user
 * with `iam.users.write` cannot take over an admin by changing its password).
 * Answers the permissions of `wanted` that `held` lacks.
 */
export function notHeld(held: ReadonlySet<string>, wanted: Iterable<string>): string[] {
  return [...new Set([...wanted].filter((name) => !held.has(name)))].sort()
}

/** Items of `next` that `current` lacks. */
export const added = <T>(current: Iterable<T>, next: Iterable<T>): T[] => {
  const have = new Set(current)
  return [...new Set(next)].filter((item) => !have.has(item))
}

/** Items of `current` that `next` lacks. */
export const removed = <T>(current: Iterable<T>, next: Iterable<T>): T[] => added(next, current)

/** The reset link: `resetUrl` with `token` added to its query (kept if it has one). */
export function passwordResetLink(resetUrl: string, token: string): string {
  const url = new URL(resetUrl)
  url.searchParams.set('token', token)
  return url.toString()
}
