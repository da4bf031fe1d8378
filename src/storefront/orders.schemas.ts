import { TICKET_STATUSES } from '../domain/orders/order-view.js'
import { PNG_SIZE } from '../domain/orders/ticket-images.js'
import { z } from 'zod'
import { pageOf, ZInstant, ZPageQuery } from '../platform/http/schemas.js'
import { ZOrderItem, ZSeat } from './baskets.schemas.js'

export const ZCheckoutBody = z
  .strictObject({
    payment_method: z.string().min(1).max(32).describe('credit_card, pix or boleto; others: 422 unsupported_payment_method'),
    installments: z.number().int().min(1).max(99).optional().describe('One of the plans of POST /baskets/{id}/installments (default 1)'),
    payment_reference: z.string().min(1).max(255).optional().describe("The partner's payment capture reference"),
    await_payment: z
      .boolean()
      .optional()
      .describe(
        'true: the order awaits payment (`pending`): its tickets are taken as sold ones are, without codes, until `payment_due_at` ' +
          '(checkout + the seller’s `payment_minutes` of the method); POST /orders/{id}/payments confirms it, otherwise it expires. ' +
          'Default false: the partner captured the payment already and the order is `confirmed` with it',
      ),
    expected_total: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        'What the partner charged, in centavos, interest included when paid in installments. When the total computed at checkout differs: ' +
          '409 `price_changed` with `details: { expected_total, total, basket }`, nothing sold, the hold kept',
      ),
    buyer: z
      .strictObject({
        email: z.email().max(254).describe('Where the order’s emails go; compared without regard to case when an account later verifies it'),
        name: z.string().trim().min(1).max(200).describe('As the tickets print it'),
      })
      .optional()
      .describe('A guest’s checkout (no `X-Customer-Token`, the seller’s `guest_checkout` on): required then; ignored with a customer token'),
  })
  .meta({ id: 'CheckoutRequest' })

export const ZPayment = z
  .object({
    id: z.uuid(),
    order_id: z.uuid(),
    amount: z.number().int().describe('Centavos'),
    method: z.string(),
    installments: z.number().int(),
    reference: z.string().nullable().describe('The provider’s reference: one payment per reference per order'),
    created_at: ZInstant,
  })
  .meta({ id: 'Payment' })

export const ZRefund = z
  .object({
    id: z.uuid(),
    order_id: z.uuid(),
    amount: z.number().int().describe('Centavos'),
    tickets: z.array(z.string()).describe('The identifiers of the tickets it pays back (voided when it was created)'),
    reason: z.string(),
    status: z.enum(['pending', 'done']).describe('`pending` until the partner confirms its provider executed it'),
    reference: z.string().nullable(),
    created_at: ZInstant,
    done_at: ZInstant.nullable(),
  })
  .meta({ id: 'Refund' })

export const ZOrder = z
  .object({
    id: z.uuid(),
    status: z
      .enum(['pending', 'confirmed', 'expired', 'cancelled'])
      .describe('`pending`: awaiting payment until `payment_due_at`; `confirmed`: paid; `expired`: unpaid in time, its tickets back on sale; `cancelled`'),
    source: z
      .enum(['checkout', 'transfer'])
      .describe('`checkout`: a basket bought; `transfer`: a ticket given to this order’s buyer (total 0, `transferred_from` names it)'),
    transferred_from: z
      .object({ order_id: z.uuid(), identifier: z.string() })
      .nullable()
      .describe('An order of a transfer: the order and the (now revoked) identifier of the ticket it was given from; null otherwise'),
    customer_id: z.uuid().nullable().describe("The buyer's account; null: a guest's order, until an account verifies its email"),
    buyer: z
      .object({ email: z.string(), name: z.string() })
      .describe('Who bought, as at checkout: the customer’s email and name, or the guest’s `buyer`. The order’s emails go to it'),
    affiliate_code: z.string().nullable(),
    items: z.array(ZOrderItem),
    totals: z.object({ subtotal: z.number().int(), discount: z.number().int(), interest: z.number().int(), total: z.number().int() }),
    payment: z.object({
      method: z.string().nullable().describe('credit_card, pix or boleto; null: an order of a transfer (`source: "transfer"`), nothing paid'),
      installments: z.number().int(),
      installment_amount: z.number().int(),
      reference: z.string().nullable(),
    }),
    payment_due_at: ZInstant.nullable().describe('When a pending order expires unless paid (kept after payment); null: paid at checkout'),
    paid_total: z.number().int().describe('The sum of its payments, in centavos'),
    refunded_total: z.number().int().describe('The sum of its done refunds, in centavos'),
    payments: z.array(ZPayment),
    refunds: z.array(ZRefund),
    tickets: z.array(
      z
        .object({
          identifier: z.string(),
          inventory_id: z.uuid(),
          variant: z.string().nullable().describe('The variant of its item, or null'),
          status: z
            .enum(TICKET_STATUSES)
            .describe(
              '`pending`: its order awaits payment (no code; refused at the door as `unpaid`); `voided`: cancelled or refunded with its order or ' +
                'alone, back on sale; `expired`: its order was not paid in time, back on sale; `transferred`: given to `transferred_to`, ' +
                'its identifier and codes revoked (no code), the recipient’s order holds a new one',
            ),
          seat: ZSeat.nullable().describe('Reserved seating: the seat it sits in, as sold; null: an unseated inventory'),
          holder: z
            .object({
              name: z.string(),
              document: z
                .string()
                .nullable()
                .describe('The holder’s document, all but its last 3 characters as `*` (whole only under /adm/v1); null: none given'),
            })
            .describe('Whose ticket it is: named by a holder change, or the order’s buyer'),
          code_version: z
            .number()
            .int()
            .describe('0 at issue; a holder change, a re-issue and a retired key bump it and re-sign `code`: a code of an older version is refused'),
          transferred_to: z
            .object({ name: z.string(), email: z.string().describe('Masked: its first character, `***` and the domain') })
            .nullable()
            .describe('A `transferred` ticket: who accepted it'),
          first_access_at: ZInstant.nullable(),
          code: z
            .string()
            .nullable()
            .describe(
              'Null while its order is unpaid (`pending`, `expired`). ' +
                'The signed code to put in the QR: a compact JWS (EdDSA, Ed25519, `kid` in its header), at most 280 characters (QR version 12 at ' +
                'error correction M), verifiable offline with the keys of GET /chk/v1/keys. Its payload is binary (big-endian): version `1`; the ' +
                'identifier’s 128 bits (`tid`); event id (`eid`) and inventory id (`inv`), 16 bytes each; the date as days since 2000-01-01 (`d`, 2 ' +
                'bytes); the variant (`v`) and the seat (`s`), each a length byte (0: none) and UTF-8 (at most 34 and 24 bytes; a longer variant cut, ' +
                'ending in `…`). The seat is its zone, row and number separated by the byte 0x1F (row and number up to 8 bytes each, the zone the ' +
                'rest; a longer part cut, ending in `…`); then, when `code_version` is above 0, one byte: `code_version` modulo 256 (`n`). ' +
                'The seller is its key’s. A code of a seller’s legacy key (issued before keys were stored) ' +
                'has the JSON payload `{tid, sid, eid, inv, d, v, s?, n?}`, `s` as `[zone, row, number]`. The same on every read, until ' +
                '`code_version` changes. Null too for a `transferred` ticket',
            ),
        })
        .meta({ id: 'Ticket' }),
    ),
    created_at: ZInstant,
  })
  .meta({ id: 'Order' })

/** A checkout's answer: the order and, for a guest's order, its token, shown this once. */
export const ZPlacedOrder = ZOrder.extend({
  order_token: z
    .string()
    .optional()
    .describe(
      'A guest’s order only, in the first answer only (not on an `Idempotency-Key` replay): send it as `X-Order-Token` to open this order ' +
        'without a customer token. Stored hashed, so never shown again; it is also in the link emailed to the buyer, and ' +
        'POST /adm/v1/orders/{id}/order-token issues a new one',
    ),
}).meta({ id: 'PlacedOrder' })

export const ZOrderList = pageOf(ZOrder).meta({ id: 'OrderList' })

export const ZOrderListQuery = ZPageQuery

export const ZOrderParams = z.object({ id: z.uuid() })

export const ZTicketQrParams = z.object({ id: z.uuid(), identifier: z.string().min(1).max(64) })

export const ZTicketPngQuery = z.object({
  size: z.coerce
    .number()
    .int()
    .min(PNG_SIZE.min)
    .max(PNG_SIZE.max)
    .default(PNG_SIZE.default)
    .describe(`Width and height in pixels, quiet zone included (${PNG_SIZE.min} to ${PNG_SIZE.max}; default ${PNG_SIZE.default})`),
})

export const ZRegisterTicketDownloadRequest = z
  .strictObject({
    order_id: z.uuid(),
    identifiers: z.array(z.string().min(1).max(64)).min(1).max(500),
    source: z.string().max(64).optional().describe('Channel the storefront served it through, e.g. site, app or email'),
    user_id: z.uuid().optional().describe('The signed-in buyer; absent for a link opened from an email'),
  })
  .meta({ id: 'RegisterTicketDownloadRequest' })

export const ZRegisterTicketDownloadResponse = z
  .object({
    registered: z.number().int(),
    first_access: z.array(z.string()),
    unknown: z.array(z.string()),
    voided: z.array(z.string()).describe('Identifiers of the order that are voided: never registered'),
  })
  .meta({ id: 'RegisterTicketDownloadResponse' })
