import { z } from 'zod'
import { TRANSFER_STATUSES } from '../domain/orders/orders.table.js'
import { ZInstant } from '../platform/http/schemas.js'
import { MAX_TRANSFER_TOKEN_LENGTH } from '../domain/transfers/transfer-tokens.js'
import { ZOrder } from './orders.schemas.js'

const ZTicket = ZOrder.shape.tickets.element

export const ZTransfer = z
  .object({
    id: z.uuid(),
    order_id: z.uuid().describe('The sender’s order'),
    identifier: z.string().describe('The ticket offered (revoked once accepted: the recipient’s ticket has a new one)'),
    status: z
      .enum(TRANSFER_STATUSES)
      .describe('`pending` until the recipient accepts or declines it, the sender cancels it, or it expires (`expires_at`); one pending transfer per ticket'),
    recipient: z.object({ email: z.string(), name: z.string() }),
    expires_at: ZInstant.describe('72 hours after it was offered, or the ticket’s date (its `time` when said), whichever is first'),
    created_at: ZInstant,
  })
  .meta({ id: 'Transfer' })

export const ZTransferList = z.object({ data: z.array(ZTransfer) }).meta({ id: 'TransferList' })

export const ZTransferRequest = z
  .strictObject({
    email: z.email().max(254).describe('Where the offer goes: not the order’s own buyer (400)'),
    name: z.string().trim().min(1).max(200).describe('The recipient’s name: the new ticket’s holder'),
  })
  .meta({ id: 'TransferRequest' })

export const ZTransferTokenRequest = z
  .strictObject({ token: z.string().min(1).max(MAX_TRANSFER_TOKEN_LENGTH).describe('The `token` of the link emailed to the recipient') })
  .meta({ id: 'TransferTokenRequest' })

export const ZAcceptedTransfer = z
  .object({
    transfer: ZTransfer,
    ticket: ZTicket.describe('The recipient’s ticket: a new identifier and code, the same seat'),
    order_id: z.uuid().describe('The recipient’s new order (`source: "transfer"`, total 0)'),
  })
  .meta({ id: 'AcceptedTransfer' })

export const ZTicketParams = z.object({ id: z.uuid(), identifier: z.string().min(1).max(64) })
