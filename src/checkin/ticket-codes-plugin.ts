import fp from 'fastify-plugin'
import { createTicketCodes } from '../domain/checkin/ticket-codes.js'
import type { Secrets } from '../platform/secrets.js'

/**
 * `app.ticketCodes`: signs and verifies tickets' codes with the sellers' stored keys, listening
 * for other processes' rotations and retires from the start until the app closes.
 */
export const ticketCodesPlugin = fp<{ secrets: Secrets }>(
  async (app, { secrets }) => {
    if (secrets.ticketKeysSource === 'JWT_SECRET') {
      app.log.warn(
        'TICKET_KEYS_SECRET is unset: the tickets’ signing keys are sealed under JWT_SECRET. Set TICKET_KEYS_SECRET ' +
          '(to the current JWT_SECRET, so stored keys still open) before JWT_SECRET ever changes.',
      )
    }
    const codes = createTicketCodes({ database: app.database, kek: secrets.ticketKeys, legacyRoot: secrets.ticketCodes })
    const stop = await codes.listen()
    app.decorate('ticketCodes', codes)
    app.addHook('onClose', () => stop())
  },
  { name: 'ticket-codes', dependencies: ['database'] },
)
