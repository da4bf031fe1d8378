import { describe, expect, it } from 'vitest'
import { formatBrl, fromPrice } from '../../src/domain/catalog/price-label.js'
import { escapeLike } from '../../src/domain/catalog/catalog.repo.js'
import { base32, newTicketIdentifier } from '../../src/domain/orders/ticket-identifier.js'

describe('formatBrl', () => {
  it('writes centavos as reais the Brazilian way', () => {
    expect(formatBrl(5000)).toBe('R$ 50,00')
    expect(formatBrl(5)).toBe('R$ 0,05')
    expect(formatBrl(123456789)).toBe('R$ 1.234.567,89')
    expect(formatBrl(100000)).toBe('R$ 1.000,00')
    expect(formatBrl(0)).toBe('R$ 0,00')
  })

  it('writes them the English way for an English-speaking seller', () => {
    expect(formatBrl(5000, 'en')).toBe('R$50.00')
    expect(formatBrl(123456789, 'en')).toBe('R$1,234,567.89')
    expect(formatBrl(-250, 'en')).toBe('-R$2.50')
  })

  it('labels a starting price', () => {
    expect(fromPrice(5000)).toEqual({ amount: 5000, label: 'a partir de R$ 50,00' })
  })
})

describe('escapeLike', () => {
  it('escapes the LIKE wildcards and the escape character', () => {
    expect(escapeLike('100%_a\\b')).toBe('100\\%\\_a\\\\b')
  })
})

describe('ticket identifiers', () => {
  it('encodes RFC 4648 base32 test vectors', () => {
    const enc = (s: string) => base32(Buffer.from(s))
    expect(enc('f')).toBe('MY')
    expect(enc('fo')).toBe('MZXQ')
    expect(enc('foo')).toBe('MZXW6')
    expect(enc('foob')).toBe('MZXW6YQ')
    expect(enc('fooba')).toBe('MZXW6YTB')
    expect(enc('foobar')).toBe('MZXW6YTBOI')
  })

  it('draws 128 random bits as 26 base32 characters', () => {
    const ids = new Set(Array.from({ length: 2000 }, newTicketIdentifier))
    expect(ids.size).toBe(2000)
    for (const id of ids) expect(id).toMatch(/^[A-Z2-7]{26}$/)
  })
})
