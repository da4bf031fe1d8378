import { expect } from 'vitest'

/**
 * Expects two requests to cost comparable work: each is timed seven times, alternating which
 * goes first, and the fastest run of each is compared. Other work on the machine only ever adds
 * time, so a minimum is a request's own cost however busy the cores are; a median is not.
 * The bounds are wide (a quarter to four times) because the claim they guard is an order of
 * magnitude: one argon2id verification (tens of ms) against a cheap early exit (a few ms).
 */
export async function expectComparableWork(reference: () => Promise<unknown>, candidate: () => Promise<unknown>) {
  const time = async (run: () => Promise<unknown>) => {
    const started = performance.now()
    await run()
    return performance.now() - started
  }
  const references: number[] = []
  const candidates: number[] = []
  for (let i = 0; i < 7; i++) {
    if (i % 2) candidates.push(await time(candidate))
    references.push(await time(reference))
    if (!(i % 2)) candidates.push(await time(candidate))
  }
  const fastest = { reference: Math.min(...references), candidate: Math.min(...candidates) }
  const summary = `fastest: reference ${fastest.reference.toFixed(1)} ms, candidate ${fastest.candidate.toFixed(1)} ms`
  expect(fastest.candidate, summary).toBeGreaterThan(fastest.reference * 0.25)
  expect(fastest.candidate, summary).toBeLessThan(fastest.reference * 4)
}
