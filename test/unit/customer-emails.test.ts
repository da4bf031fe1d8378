import { describe, expect, it } from 'vitest'
import { describeLifetime, magicLinkEmail, passwordResetEmail, storefrontLink, verificationEmail } from '../../src/domain/customers/customer-emails.js'

const seller = { name: 'Loja Azul', storefrontUrl: 'https://azul.example.com/loja' }
const to = { email: 'ana@example.com', firstName: 'Ana' }

describe('storefrontLink', () => {
  it('puts the page and the token on the storefront URL', () => {
    expect(storefrontLink('https://shop.example.com', 'verify-email', 'abc_-123')).toBe('https://shop.example.com/verify-email?token=abc_-123')
    expect(storefrontLink('https://shop.example.com/br', 'magic-link', 't')).toBe('https://shop.example.com/br/magic-link?token=t')
  })

  it('ignores trailing slashes of the storefront URL', () => {
    expect(storefrontLink('https://shop.example.com//', 'reset-password', 't')).toBe('https://shop.example.com/reset-password?token=t')
  })

  it('escapes a token that is not URL-safe', () => {
    expect(storefrontLink('https://s.example', 'magic-link', 'a+b/c=&d')).toBe('https://s.example/magic-link?token=a%2Bb%2Fc%3D%26d')
  })
})

describe('describeLifetime', () => {
  it('says a lifetime in the largest whole unit', () => {
    expect(describeLifetime(600)).toBe('10 minutes')
    expect(describeLifetime(1800)).toBe('30 minutes')
    expect(describeLifetime(3600)).toBe('1 hour')
    expect(describeLifetime(172_800)).toBe('48 hours')
    expect(describeLifetime(60)).toBe('1 minute')
    expect(describeLifetime(90)).toBe('90 seconds')
    expect(describeLifetime(1)).toBe('1 second')
  })
})

describe('customer emails', () => {
  it.each([
    ['verification', verificationEmail, 'stf.verify_email', 'verify-email', 'Confirm your email address for Loja Azul', 172_800, '48 hours'],
    ['password reset', passwordResetEmail, 'stf.reset_password', 'reset-password', 'Reset your Loja Azul password', 1800, '30 minutes'],
    ['magic link', magicLinkEmail, 'stf.magic_link', 'magic-link', 'Your Loja Azul sign-in link', 600, '10 minutes'],
  ] as const)('%s: addressed to the customer, with its link and lifetime', (_name, compose, kind, page, subject, ttl, lifetime) => {
    const email = compose(seller, to, 'TOKEN123', ttl)
    expect(email).toMatchObject({ kind, to: 'ana@example.com', subject })
    expect(email.text).toMatch(/^Hello Ana,\n/)
    expect(email.text).toContain(`https://azul.example.com/loja/${page}?token=TOKEN123`)
    expect(email.text).toContain(`expires in ${lifetime}`)
  })
})
