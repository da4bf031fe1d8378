import type { Db } from '../../platform/db/database.js'
import { magicLinkEmail, type CustomerEmailRequest } from './customer-emails.js'
import { emailOneTimeLink } from './email-one-time-link.js'

export type RequestMagicLinkOptions = CustomerEmailRequest & { magicLinkTtlSeconds: number }

/** Emails a single-use sign-in link when the seller has a customer with this email; reveals nothing either way. */
export const requestMagicLink = (db: Db, { magicLinkTtlSeconds, ...request }: RequestMagicLinkOptions) =>
  emailOneTimeLink(db, {
    ...request,
    purpose: 'magic_link',
    ttlSeconds: magicLinkTtlSeconds,
    compose: magicLinkEmail,
    auditAction: 'stf.customer.magic_link_requested',
  })
