/**
 * Centavos as Brazilian reais, the way a storefront prints them: `R$ 1.234,50`. Written out
 * rather than with Intl, whose pt-BR output uses a no-break space and varies with the ICU build.
 */
export function formatBrl(centavos: number): string {
  const sign = centavos < 0 ? '-' : ''
  const abs = Math.abs(Math.trunc(centavos))
  const reais = Math.floor(abs / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, '.')
  const cents = String(abs % 100).padStart(2, '0')
  return `${sign}R$ ${reais},${cents}`
}

/** `SellerEvent.price`: the lowest price with tickets left, labelled "a partir de R$ 50,00". */
export const fromPrice = (centavos: number) => ({ amount: centavos, label: `a partir de ${formatBrl(centavos)}` })
