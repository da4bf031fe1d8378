import type { SellerRow } from './sellers.repo.js'

/** What a seller may tune: basket holds and installment plans. */
export type SellerSettings = {
  basket_ttl_seconds: number
  max_installments: number
  interest_free_installments: number
  monthly_rate: number
  min_installment_amount: number
}

export const settingsOf = (seller: SellerRow): SellerSettings => ({
  basket_ttl_seconds: seller.basketTtlSeconds,
  max_installments: seller.maxInstallments,
  interest_free_installments: seller.interestFreeInstallments,
  monthly_rate: seller.monthlyRate,
  min_installment_amount: seller.minInstallmentAmount,
})

/** Maps API settings onto columns, leaving out what was not given. */
export const settingsColumns = (settings: Partial<SellerSettings> | undefined) => ({
  ...(settings?.basket_ttl_seconds !== undefined ? { basketTtlSeconds: settings.basket_ttl_seconds } : {}),
  ...(settings?.max_installments !== undefined ? { maxInstallments: settings.max_installments } : {}),
  ...(settings?.interest_free_installments !== undefined ? { interestFreeInstallments: settings.interest_free_installments } : {}),
  ...(settings?.monthly_rate !== undefined ? { monthlyRate: settings.monthly_rate } : {}),
  ...(settings?.min_installment_amount !== undefined ? { minInstallmentAmount: settings.min_installment_amount } : {}),
})
