import type { Db } from '../../platform/db/database.js'
import { AppError } from '../../platform/errors.js'
import { enqueueEmail } from '../../platform/mail/outbox.repo.js'
import { recordAudit, type AuditActor } from '../audit/record-audit.js'
import { orderEmailContexts, orderLinkEmail, orderLinkOf } from './order-emails.js'
import { newOrderToken } from './order-tokens.js'
import { replaceOrderTokenHash } from './orders.repo.js'

export type ReissueOrderTokenOptions = { orderId: string; tokenHmac: Buffer; actor: AuditActor }

/**
 * A new token for an order (docs/selling.md): the old one opens nothing from this commit on (a lost
 * email, a forwarded link). The buyer is emailed the new link. Answers the token, shown this once.
 * An order of any seller (the back office); none with this id: 404.
 */
export async function reissueOrderToken(db: Db, options: ReissueOrderTokenOptions): Promise<{ order_token: string }> {
  const { token, hash } = newOrderToken(options.tokenHmac)
  return db.transaction(async (tx) => {
    const order = await replaceOrderTokenHash(tx, options.orderId, hash)
    if (!order) throw new AppError('not_found')
    const context = (await orderEmailContexts(tx, [order.id])).get(order.id)!
    await enqueueEmail(tx, orderLinkEmail({ ...context, link: orderLinkOf(context.seller.storefrontUrl, order.id, token) }, order.id))
    await recordAudit(tx, options.actor, {
      action: 'adm.order.token_reissued',
      target: { type: 'order', id: order.id },
      sellerId: order.sellerId,
      data: {},
    })
    return { order_token: token }
  })
}
