import { and, eq } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import type { Executable } from '../../platform/db/transaction-ending-with.js'
import type { PaymentRow } from './payment-views.js'
import { payments } from './payments.table.js'

export type NewPayment = Omit<typeof payments.$inferInsert, 'createdAt'> & { id: string }

/** Writes a payment and answers it as written; none given: answers no rows. */
export const insertPaymentQuery = (tx: Db, payment: NewPayment | undefined): Executable<PaymentRow[]> => ({
  execute: async () => (payment ? tx.insert(payments).values(payment).returning() : []),
})

/** The payment of this order with this reference, if any. */
export const findPaymentByReference = async (tx: Db, orderId: string, reference: string) =>
  (
    await tx
      .select()
      .from(payments)
      .where(and(eq(payments.orderId, orderId), eq(payments.reference, reference)))
  )[0]
