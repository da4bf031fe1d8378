import { KNOWN_ENV } from '../../src/platform/config.js'

/**
 * Every rate limit of the configuration set high enough that a test's own bursts are never
 * limited (unless it says so). Read from the configuration's own list, so a new limit is covered.
 */
export const NO_RATE_LIMITS: Record<string, string> = Object.fromEntries(
  KNOWN_ENV.filter((name) => /_LIMIT_PER_|_FAILURES_PER_/.test(name)).map((name) => [name, '1000000']),
)
