import { z } from 'zod'
import { DOCUMENT_PATTERN } from '../domain/tickets/holder.js'
import { ZOrder } from './orders.schemas.js'

/** A ticket as its order lists it (one definition: the Order's). */
export const ZTicket = ZOrder.shape.tickets.element

export const ZHolderRequest = z
  .strictObject({
    name: z.string().trim().min(1).max(200).describe('The holder’s name, as the ticket prints it and the gate shows it (trimmed, 1..200 characters)'),
    document: z
      .string()
      .trim()
      .regex(DOCUMENT_PATTERN, 'must be 3 to 20 letters or digits')
      .nullable()
      .optional()
      .describe(
        'The holder’s document: the digits of a CPF or any id, 3..20 letters or digits (no dots or dashes). Absent or null: none. ' +
          'Shown whole only under /adm/v1; elsewhere all but its last 3 characters as `*`',
      ),
  })
  .meta({ id: 'HolderRequest' })
