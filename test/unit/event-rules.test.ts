import { describe, expect, it } from 'vitest'
import { firstFreeSlug, isUuidShaped, SLUG_MAX_LENGTH, SLUG_PATTERN, slugify, withIds } from '../../src/domain/catalog/event-rules.js'

describe('slugify', () => {
  it('lower-cases, strips accents and joins words with single hyphens', () => {
    expect(slugify('Show da Virada: São João 2026!')).toBe('show-da-virada-sao-joao-2026')
    expect(slugify('  Ação --- Coração  ')).toBe('acao-coracao')
    expect(slugify('Straße & Crème Brûlée')).toBe('strasse-creme-brulee')
    expect(slugify('ÉVÉNEMENT')).toBe('evenement')
  })

  it('falls back to "event" when nothing of the title is left', () => {
    expect(slugify('!!!')).toBe('event')
    expect(slugify('演唱会')).toBe('event')
  })

  it('cuts long titles at a hyphen, leaving room for a -N suffix', () => {
    const slug = slugify(`${'palavra '.repeat(30)}fim`)
    expect(slug.length).toBeLessThanOrEqual(SLUG_MAX_LENGTH - 4)
    expect(slug).toMatch(SLUG_PATTERN)
    expect(slug.endsWith('palavra')).toBe(true)
    expect(slugify('a'.repeat(300))).toBe('a'.repeat(SLUG_MAX_LENGTH - 4))
  })

  it('never derives a slug shaped like an event id', () => {
    const id = '3f0b7a5e-8c1d-4e2a-9b6f-0a1b2c3d4e5f'
    expect(isUuidShaped(id)).toBe(true)
    expect(slugify(id)).toBe(`event-${id}`)
    expect(isUuidShaped(slugify(id))).toBe(false)
  })
})

describe('firstFreeSlug', () => {
  it('answers the base when free, else the first free -N from 2', () => {
    expect(firstFreeSlug('show', new Set())).toBe('show')
    expect(firstFreeSlug('show', new Set(['show']))).toBe('show-2')
    expect(firstFreeSlug('show', new Set(['show', 'show-2', 'show-3']))).toBe('show-4')
    expect(firstFreeSlug('show', new Set(['show', 'show-3']))).toBe('show-2')
  })
})

describe('withIds', () => {
  const existing = ['0d4f1c2e-1111-4a2b-8c3d-000000000001']

  it('gives new items fresh uuids and keeps the ids items name', () => {
    const [kept, fresh] = withIds([{ id: existing[0], name: 'a' }, { name: 'b' }], existing, 'attributes')
    expect(kept).toEqual({ id: existing[0], name: 'a' })
    expect(fresh!.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(fresh!.id).not.toBe(existing[0])
  })

  it('refuses an id the list does not hold, or one given twice', () => {
    expect(() => withIds([{ id: '0d4f1c2e-1111-4a2b-8c3d-000000000009', name: 'x' }], existing, 'images')).toThrow(
      expect.objectContaining({ code: 'validation_error', details: [expect.objectContaining({ path: 'images.0.id' })] }),
    )
    expect(() =>
      withIds(
        [
          { id: existing[0], name: 'x' },
          { id: existing[0], name: 'y' },
        ],
        existing,
        'images',
      ),
    ).toThrow(expect.objectContaining({ details: [expect.objectContaining({ path: 'images.1.id' })] }))
  })
})
