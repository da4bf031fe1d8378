/**
 * How long, at least, a call that looks an email up takes to answer (forgot-password, magic
 * link, staff password recovery). The work differs a little between an address with an account
 * (token, email and audit rows) and one without (an audit row): a few milliseconds that an
 * attacker timing many requests could tell apart. Both answer after the same floor instead.
 */
export const ACCOUNT_LOOKUP_FLOOR_MS = 50

/** Resolves once `ms` have passed since `since` (a `performance.now()` reading), at once if they have. */
export async function notBefore(since: number, ms: number): Promise<void> {
  const wait = since + ms - performance.now()
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
}
