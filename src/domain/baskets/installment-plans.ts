import { AppError } from '../../platform/errors.js'
import type { SellerSettings } from '../sellers/seller-settings.js'

export const PAYMENT_METHODS = ['credit_card', 'pix', 'boleto'] as const
export type PaymentMethod = (typeof PAYMENT_METHODS)[number]

/** `amount × (installments − 1) + last_amount = total`, to the centavo: what the card is charged. */
export type InstallmentPlan = { installments: number; amount: number; last_amount: number; total: number; interest: number; monthly_rate: number }

export type InstallmentSettings = Pick<SellerSettings, 'max_installments' | 'interest_free_installments' | 'monthly_rate' | 'min_installment_amount'>

export const isPaymentMethod = (value: string): value is PaymentMethod => (PAYMENT_METHODS as readonly string[]).includes(value)

/**
 * The plans for paying `total` centavos (docs/selling.md). pix and boleto: one plan of 1. Credit
 * card: 1 to `max_installments`; up to `interest_free_installments` without interest
 * (`ceil(total / n)` each and the rest in the last, plan total = basket total), beyond that the
 * Price formula at `monthly_rate`: `round(P·i / (1 − (1 + i)^−n))` each, plan total = amount × n.
 * Every plan charges exactly its total: `amount × (n − 1) + last_amount = total`. Plans with an
 * installment (the last one included) under `min_installment_amount` are dropped, except the
 * single payment, which is always offered. Throws `unsupported_payment_method` for any other method.
 */
export function installmentPlans(total: number, method: string, settings: InstallmentSettings): InstallmentPlan[] {
  if (!isPaymentMethod(method)) throw new AppError('unsupported_payment_method')
  const single: InstallmentPlan = { installments: 1, amount: total, last_amount: total, total, interest: 0, monthly_rate: 0 }
  if (method !== 'credit_card') return [single]

  const plans: InstallmentPlan[] = [single]
  const rate = settings.monthly_rate
  for (let n = 2; n <= settings.max_installments; n++) {
    let plan: InstallmentPlan
    if (n <= settings.interest_free_installments || rate <= 0) {
      const amount = Math.ceil(total / n)
      plan = { installments: n, amount, last_amount: total - amount * (n - 1), total, interest: 0, monthly_rate: 0 }
    } else {
      const amount = Math.round((total * rate) / (1 - (1 + rate) ** -n))
      plan = { installments: n, amount, last_amount: amount, total: amount * n, interest: amount * n - total, monthly_rate: rate }
    }
    if (Math.min(plan.amount, plan.last_amount) >= settings.min_installment_amount) plans.push(plan)
  }
  return plans
}
