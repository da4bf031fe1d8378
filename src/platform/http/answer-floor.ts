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

/**
 * Runs a call that looks an account up (and emails it only when it exists), then answers
 * `answer`, no sooner than the floor, either way: neither the answer nor its time tells whether
 * there is an account.
 */
export async function sameAnswerEitherWay<T>(lookup: () => Promise<void>, answer: T): Promise<T> {
  const started = performance.now()
  await lookup()
  await notBefore(started, ACCOUNT_LOOKUP_FLOOR_MS)
  return answer
}
