import type { EmailMessage } from '../../platform/mail/outbox.repo.js'

/** The seller a customer email speaks for: its name, and its storefront that serves the links. */
export type EmailSeller = { name: string; storefrontUrl: string }

export type EmailRecipient = { email: string; firstName: string }

/**
 * What every call that emails a link to a seller's customer, found by address, takes: the seller,
 * the address, the key that hashes the link's token and the trace id for the audit log.
 */
export type CustomerEmailRequest = { seller: EmailSeller & { id: string }; email: string; tokenHmac: Buffer; traceId?: string }

export type StorefrontPage = 'verify-email' | 'reset-password' | 'magic-link' | 'waiting-list/accept'

/** `{storefront_url}/{page}?token=<token>` (API.md 3.2), whatever trailing slashes the URL has. */
export function storefrontLink(storefrontUrl: string, page: StorefrontPage, token: string): string {
  return `${storefrontUrl.replace(/\/+$/, '')}/${page}?token=${encodeURIComponent(token)}`
}

/** "10 minutes", "1 hour", "48 hours": how long a link stays valid, in the email's words. */
export function describeLifetime(seconds: number): string {
  const [amount, unit] = seconds % 3600 === 0 ? [seconds / 3600, 'hour'] : seconds % 60 === 0 ? [seconds / 60, 'minute'] : [seconds, 'second']
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`
}

function compose(kind: string, to: EmailRecipient, subject: string, lines: string[]): EmailMessage {
  return { kind, to: to.email, subject, text: [`Hello ${to.firstName},`, '', ...lines, ''].join('\n') }
}

export function verificationEmail(seller: EmailSeller, to: EmailRecipient, token: string, ttlSeconds: number): EmailMessage {
  return compose('stf.verify_email', to, `Confirm your email address for ${seller.name}`, [
    `Please confirm the email address of your ${seller.name} account by opening this link:`,
    '',
    storefrontLink(seller.storefrontUrl, 'verify-email', token),
    '',
    `The link works once and expires in ${describeLifetime(ttlSeconds)}. If you did not create this account, do not ` +
      'open it: someone else chose its password. Sign in with a magic link or reset the password instead, which ends their access.',
  ])
}

export function passwordResetEmail(seller: EmailSeller, to: EmailRecipient, token: string, ttlSeconds: number): EmailMessage {
  return compose('stf.reset_password', to, `Reset your ${seller.name} password`, [
    `Someone asked to reset the password of your ${seller.name} account. To choose a new one, open this link:`,
    '',
    storefrontLink(seller.storefrontUrl, 'reset-password', token),
    '',
    `The link works once and expires in ${describeLifetime(ttlSeconds)}. If you did not ask for it, ignore this email: your password stays as it is.`,
  ])
}

export function magicLinkEmail(seller: EmailSeller, to: EmailRecipient, token: string, ttlSeconds: number): EmailMessage {
  return compose('stf.magic_link', to, `Your ${seller.name} sign-in link`, [
    `Open this link to sign in to ${seller.name}:`,
    '',
    storefrontLink(seller.storefrontUrl, 'magic-link', token),
    '',
    `The link works once and expires in ${describeLifetime(ttlSeconds)}. If you did not ask for it, ignore this email.`,
  ])
}
