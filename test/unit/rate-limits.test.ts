import { describe, expect, it } from 'vitest'
import { createLimits } from '../../src/platform/http/rate-limits.js'

describe('attempt counters (in process memory)', () => {
  it('count per key, refuse past the limit with a Retry-After, and take a forgiven attempt back', async () => {
    const limit = createLimits({ keyPrefix: 't:' }).define('login', 2, 60)
    expect(await limit.count('a')).toEqual({ allowed: true, retryAfterSeconds: 0 })
    await limit.forgive('a')
    await limit.hit('a')
    await limit.hit('a')
    await expect(limit.hit('a')).rejects.toMatchObject({ code: 'rate_limited', headers: { 'retry-after': expect.stringMatching(/^\d+$/) } })
    await limit.hit('b')
    await limit.clear('a')
    await limit.hit('a')
  })

  it('are one counter per name, however many places define it', async () => {
    const limits = createLimits({ keyPrefix: 't:' })
    const here = limits.define('shared', 2, 60)
    const there = limits.define('shared', 2, 60)
    await here.hit('k')
    await there.hit('k')
    await expect(here.hit('k')).rejects.toMatchObject({ code: 'rate_limited' })
  })
})
