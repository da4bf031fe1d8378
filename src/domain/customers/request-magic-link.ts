import type { Db } from '../../platform/db/database.js'
import { magicLinkEmail, type EmailSeller } from './customer-emails.js'
import { emailOneTimeLink } from './email-one-time-link.js'

export type RequestMagicLinkOptions = {
  seller: EmailSeller & { id: string }
  email: string
  tokenHmac: Buffer
  magicLinkTtlSeconds: number
  traceId?: string
}

/** Emails a single-use sign-in link when the seller has a customer with this email; reveals nothing either way. */
export const requestMagicLink = (db: Db, options: RequestMagicLinkOptions) =>
  emailOneTimeLink(db, {
    seller: options.seller,
    email: options.email,
    purpose: 'magic_link',
    ttlSeconds: options.magicLinkTtlSeconds,
    tokenHmac: options.tokenHmac,
    compose: magicLinkEmail,
    auditAction: 'stf.customer.magic_link_requested',
    ...(options.traceId ? { traceId: options.traceId } : {}),
  })
