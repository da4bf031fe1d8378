import { describe, expect, it } from 'vitest'
import { EpochCache } from '../../src/platform/cache/epoch-cache.js'

type Answer = { seller: string; body: string; until: number }
const NOW = 1_000
const answer = (seller: string, body = 'x'): Answer => ({ seller, body, until: NOW + 1000 })
const bySeller = (options: { maxEntries?: number; maxWeight?: number; trusted?: () => boolean } = {}) =>
  new EpochCache<Answer>({
    maxEntries: options.maxEntries ?? 10,
    groupOf: (value) => value.seller,
    weightOf: (value) => value.body.length,
    maxWeight: options.maxWeight ?? 100,
    trusted: options.trusted ?? (() => true),
  })

describe('EpochCache', () => {
  it("keeps a reading unless a notice about its group came after it started; another group's notice does not matter", () => {
    const cache = bySeller()
    const since = cache.since()
    cache.forget('s1')
    expect(cache.set('a', answer('s1'), since)).toBe(false)
    expect(cache.set('b', answer('s2'), since)).toBe(true)
    expect(cache.set('a', answer('s1'), cache.since())).toBe(true)
    expect(cache.get('a', NOW)?.seller).toBe('s1')
  })

  it('keeps no reading that started before a clear, however many notices came around it', () => {
    const cache = bySeller()
    cache.forget('s1')
    const since = cache.since()
    cache.clear()
    cache.forget('s2')
    expect(cache.set('a', answer('s1'), since)).toBe(false)
    expect(cache.set('b', answer('s3'), since)).toBe(false)
  })

  it("forgets a group's entries, or those of it that `which` picks", () => {
    const cache = bySeller()
    cache.set('a', answer('s1', 'a'), cache.since())
    cache.set('b', answer('s1', 'b'), cache.since())
    cache.set('c', answer('s2', 'c'), cache.since())
    cache.forget('s1', (value) => value.body === 'a')
    expect([cache.get('a', NOW), cache.get('b', NOW)?.body, cache.get('c', NOW)?.body]).toEqual([undefined, 'b', 'c'])
    cache.forget('s1')
    expect(cache.size()).toEqual({ entries: 1, weight: 1 })
  })

  it('serves nothing expired or untrusted, and keeps nothing untrusted', () => {
    let trusted = true
    const cache = bySeller({ trusted: () => trusted })
    cache.set('a', answer('s1'), cache.since())
    expect(cache.get('a', NOW + 1000)).toBeUndefined()
    trusted = false
    expect(cache.get('a', NOW)).toBeUndefined()
    expect(cache.set('b', answer('s1'), cache.since())).toBe(false)
  })

  it('stays within its count and its weight, the oldest going first', () => {
    const cache = bySeller({ maxEntries: 2, maxWeight: 5 })
    for (const key of ['a', 'b', 'c']) cache.set(key, answer('s1', key), cache.since())
    expect([cache.get('a', NOW), cache.get('b', NOW)?.body, cache.get('c', NOW)?.body]).toEqual([undefined, 'b', 'c'])
    cache.set('d', answer('s1', 'dddd'), cache.since())
    expect(cache.size()).toEqual({ entries: 2, weight: 5 })
    expect(cache.set('e', answer('s1', 'eeeeee'), cache.since())).toBe(false)
  })

  it('keys are their own groups without groupOf: forgetting one touches no other', () => {
    const cache = new EpochCache<Answer>({ maxEntries: 10, trusted: () => true })
    cache.set('a', answer('s1'), cache.since())
    cache.set('b', answer('s1'), cache.since())
    cache.forget('a')
    expect([cache.get('a', NOW), cache.get('b', NOW)?.seller]).toEqual([undefined, 's1'])
  })
})
