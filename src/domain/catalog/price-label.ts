import type { Locale } from '../sellers/seller-settings.js'

/** How each language buyers read writes reais: `R$ 1.234,50` in Brazil, `R$1,234.50` in English. */
const MONEY: Record<Locale, { symbol: string; thousands: string; decimal: string }> = {
  'pt-BR': { symbol: 'R$ ', thousands: '.', decimal: ',' },
  en: { symbol: 'R$', thousands: ',', decimal: '.' },
}

/**
 * Centavos as Brazilian reais, the way a storefront prints them: `R$ 1.234,50` (or, for an
 * English-speaking seller's buyers, `R$1,234.50`). Written out rather than with Intl, whose pt-BR
 * output uses a no-break space and varies with the ICU build.
 */
export function formatBrl(centavos: number, locale: Locale = 'pt-BR'): string {
  const { symbol, thousands, decimal } = MONEY[locale]
  const sign = centavos < 0 ? '-' : ''
  const abs = Math.abs(Math.trunc(centavos))
  const reais = Math.floor(abs / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, thousands)
  const cents = String(abs % 100).padStart(2, '0')
  return `${sign}${symbol}${reais}${decimal}${cents}`
}

/** `SellerEvent.price`: the lowest price with tickets left, labelled "a partir de R$ 50,00". */
export const fromPrice = (centavos: number) => ({ amount: centavos, label: `a partir de ${formatBrl(centavos)}` })
