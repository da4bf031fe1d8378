import { describe, expect, it } from 'vitest'
import { normalizeEmail } from '../../src/platform/auth/email.js'
import { added, likePattern, notHeld, passwordResetLink, removed, unknownNameDetails, unknownNames } from '../../src/domain/staff/staff-rules.js'

describe('staff rules', () => {
  it('compares emails without case or surrounding spaces', () => {
    expect(normalizeEmail('  Ada.Lovelace@Example.COM ')).toBe('ada.lovelace@example.com')
  })

  it('escapes LIKE wildcards so that search input matches literally', () => {
    expect(likePattern('50%_off\\')).toBe('%50\\%\\_off\\\\%')
    expect(likePattern('plain')).toBe('%plain%')
  })

  it('names unknown names once each, in the order asked, with their body paths', () => {
    expect(unknownNames(['a', 'x', 'b', 'x', 'y'], ['a', 'b'])).toEqual(['x', 'y'])
    expect(unknownNameDetails('roles', ['a', 'x', 'y'], ['x', 'y'], 'role')).toEqual([
      { path: 'roles.1', message: 'no role is named "x"' },
      { path: 'roles.2', message: 'no role is named "y"' },
    ])
  })

  it('finds the permissions a caller would confer without holding them', () => {
    const held = new Set(['iam.users.read', 'iam.users.write'])
    expect(notHeld(held, ['iam.users.read'])).toEqual([])
    expect(notHeld(held, ['adm.orders.write', 'iam.users.read', 'adm.catalog.read', 'adm.orders.write'])).toEqual(['adm.catalog.read', 'adm.orders.write'])
  })

  it('computes what a sync adds and removes', () => {
    expect(added(['a', 'b'], ['b', 'c', 'c'])).toEqual(['c'])
    expect(removed(['a', 'b'], ['b', 'c'])).toEqual(['a'])
    expect(added([], [])).toEqual([])
  })

  it('adds the token to the reset URL, keeping a query it already has', () => {
    expect(passwordResetLink('https://admin.example.com/reset', 'abc_-1')).toBe('https://admin.example.com/reset?token=abc_-1')
    expect(passwordResetLink('https://admin.example.com/reset?lang=pt', 'abc')).toBe('https://admin.example.com/reset?lang=pt&token=abc')
  })
})
