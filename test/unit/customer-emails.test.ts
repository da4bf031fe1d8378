import { describe, expect, it } from 'vitest'
import {
  describeInstant,
  describeLifetime,
  magicLinkEmail,
  passwordResetEmail,
  storefrontLink,
  verificationEmail,
  waitingListOfferEmail,
} from '../../src/domain/customers/customer-emails.js'

const seller = { name: 'Loja Azul', storefrontUrl: 'https://azul.example.com/loja', settings: { locale: 'en', timezone: 'America/Sao_Paulo' } } as const
const sellerPt = { ...seller, settings: { locale: 'pt-BR', timezone: 'America/Sao_Paulo' } } as const
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
    expect(describeLifetime(600, 'en')).toBe('10 minutes')
    expect(describeLifetime(1800, 'en')).toBe('30 minutes')
    expect(describeLifetime(3600, 'en')).toBe('1 hour')
    expect(describeLifetime(172_800, 'en')).toBe('48 hours')
    expect(describeLifetime(60, 'en')).toBe('1 minute')
    expect(describeLifetime(90, 'en')).toBe('90 seconds')
    expect(describeLifetime(1, 'en')).toBe('1 second')
  })

  it('speaks Portuguese for a pt-BR seller', () => {
    expect(describeLifetime(600, 'pt-BR')).toBe('10 minutos')
    expect(describeLifetime(3600, 'pt-BR')).toBe('1 hora')
    expect(describeLifetime(172_800, 'pt-BR')).toBe('48 horas')
    expect(describeLifetime(1, 'pt-BR')).toBe('1 segundo')
  })
})

describe('describeInstant', () => {
  // 19:40 UTC is 16:40 in São Paulo (UTC-3, no daylight saving since 2019) and 01:10 the next day in Kolkata (UTC+5:30).
  const instant = new Date('2026-11-28T19:40:53.024Z')

  it("reads an instant on the seller's clock, in its language, never as UTC", () => {
    const pt = describeInstant(instant, sellerPt)
    expect(pt).toContain('28 de novembro de 2026')
    expect(pt).toContain('16:40')
    const en = describeInstant(instant, { ...seller, settings: { locale: 'en', timezone: 'Asia/Kolkata' } })
    expect(en).toContain('November 29, 2026')
    expect(en).toMatch(/1:10\sAM/)
    for (const text of [pt, en]) expect(text).not.toContain('19:40')
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

  it.each([
    ['verification', verificationEmail, 'Loja Azul: confirme seu e-mail', 172_800, 'expira em 48 horas'],
    ['password reset', passwordResetEmail, 'Loja Azul: redefina sua senha', 1800, 'expira em 30 minutos'],
    ['magic link', magicLinkEmail, 'Loja Azul: seu link de acesso', 600, 'expira em 10 minutos'],
  ] as const)('%s: in Portuguese for a pt-BR seller', (_name, compose, subject, ttl, lifetime) => {
    const email = compose(sellerPt, to, 'TOKEN123', ttl)
    expect(email.subject).toBe(subject)
    expect(email.text).toMatch(/^Olá, Ana,\n/)
    expect(email.text).toContain(lifetime)
  })

  it('waiting list offer: the tickets, the link, and until when on the seller’s clock, in each language', () => {
    const entry = {
      email: 'ana@example.com',
      name: null,
      quantity: 2,
      offeredAt: new Date('2026-11-27T19:40:53.024Z'),
      offerExpiresAt: new Date('2026-11-28T19:40:53.024Z'),
    }
    const pt = waitingListOfferEmail(sellerPt, entry, 'TOKEN123')
    expect(pt).toMatchObject({ kind: 'stf.waiting_list_offer', to: 'ana@example.com', subject: 'Loja Azul: seus ingressos estão à sua espera' })
    expect(pt.text).toMatch(/^Olá,\n/)
    expect(pt.text).toContain('Os 2 ingressos que você esperava em Loja Azul')
    expect(pt.text).toContain('https://azul.example.com/loja/waiting-list/accept?token=TOKEN123')
    expect(pt.text).toContain('A oferta vale por 24 horas, até sábado, 28 de novembro de 2026 às 16:40')
    const en = waitingListOfferEmail(seller, { ...entry, name: 'Ana', quantity: 1 }, 'TOKEN123')
    expect(en.subject).toBe('Tickets are waiting for you at Loja Azul')
    expect(en.text).toMatch(/^Hello Ana,\n/)
    expect(en.text).toContain('The ticket you waited for at Loja Azul is held for you')
    expect(en.text).toMatch(/The offer lasts 24 hours, until Saturday, November 28, 2026 at 4:40\sPM/)
    for (const email of [pt, en]) expect(email.text).not.toContain('2026-11-28T')
  })
})
