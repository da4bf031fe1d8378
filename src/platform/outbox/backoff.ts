/** The delay before attempt `attempt + 1`: doubling from `baseMs` after the first failure, capped at `maxMs`. */
export function retryDelayMs(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1))
}

/**
 * `retryDelayMs` with "equal jitter": between half of it and all of it, so that rows failed
 * together (a receiver that was down) do not all come due again in the same instant.
 */
export function jitteredDelayMs(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const delay = retryDelayMs(attempt, baseMs, maxMs)
  return Math.round(delay / 2 + random() * (delay / 2))
}
