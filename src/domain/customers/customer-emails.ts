import { dateTimeFormat } from '../../platform/date-formats.js'
import type { EmailMessage } from '../../platform/mail/outbox.repo.js'
import type { Locale, SellerSettings } from '../sellers/seller-settings.js'

// Every email to a seller's buyers (its customers and the people on its waiting lists), in each
// language a seller may choose (its `locale` setting), with times read in its `timezone`. The
// wording of both languages sits side by side here, so that a new email, or a change of one, is
// written in both at once: the compiler refuses a kind missing in either. The emails about an
// order (order-emails.ts) keep their wording the same way, and are composed and timed here.

/** The seller a buyer email speaks for: its name, its storefront that serves the links, and its buyers' language and time zone. */
export type EmailSeller = { name: string; storefrontUrl: string; settings: Pick<SellerSettings, 'locale' | 'timezone'> }

export type EmailRecipient = { email: string; firstName: string }

/**
 * What every call that emails a link to a seller's customer, found by address, takes: the seller,
 * the address, the key that hashes the link's token and the trace id for the audit log.
 */
export type CustomerEmailRequest = { seller: EmailSeller & { id: string }; email: string; tokenHmac: Buffer; traceId?: string }

export type StorefrontPage = 'verify-email' | 'reset-password' | 'magic-link' | 'waiting-list/accept' | 'transfer' | `orders/${string}`

/** `{storefront_url}/{page}?token=<token>` (docs/selling.md), whatever trailing slashes the URL has. */
export function storefrontLink(storefrontUrl: string, page: StorefrontPage, token: string): string {
  return `${storefrontUrl.replace(/\/+$/, '')}/${page}?token=${encodeURIComponent(token)}`
}

const UNITS: Record<Locale, Record<'hour' | 'minute' | 'second', readonly [string, string]>> = {
  'pt-BR': { hour: ['hora', 'horas'], minute: ['minuto', 'minutos'], second: ['segundo', 'segundos'] },
  en: { hour: ['hour', 'hours'], minute: ['minute', 'minutes'], second: ['second', 'seconds'] },
}

/** "10 minutes", "1 hora", "48 hours": how long a link or an offer lasts, in the email's words. */
export function describeLifetime(seconds: number, locale: Locale): string {
  const [amount, unit] =
    seconds % 3600 === 0 ? [seconds / 3600, 'hour' as const] : seconds % 60 === 0 ? [seconds / 60, 'minute' as const] : [seconds, 'second' as const]
  return `${amount} ${UNITS[locale][unit][amount === 1 ? 0 : 1]}`
}

/**
 * An instant as the seller's buyers read it: their calendar and clock in the seller's time zone,
 * with the zone named ("sábado, 28 de novembro de 2026 às 16:40 BRT", "Saturday, November 28,
 * 2026 at 4:40 PM GMT-3"), never an ISO instant in UTC.
 */
export function describeInstant(instant: Date, seller: EmailSeller): string {
  return dateTimeFormat(seller.settings.locale, {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
    timeZone: seller.settings.timezone,
  }).format(instant)
}

/** A link's words: the seller's name, the link, and how long it lasts (already in the email's language). */
type LinkWords = { seller: string; link: string; lifetime: string }

/** What the waiting list offer email says, in the email's language. */
type OfferWords = { seller: string; link: string; quantity: number; lifetime: string; until: string }

type Catalogue = {
  hello: (name: string | null) => string
  verification: { subject: (seller: string) => string; lines: (w: LinkWords) => string[] }
  passwordReset: { subject: (seller: string) => string; lines: (w: LinkWords) => string[] }
  magicLink: { subject: (seller: string) => string; lines: (w: LinkWords) => string[] }
  waitingListOffer: { subject: (seller: string) => string; lines: (w: OfferWords) => string[] }
}

const CATALOGUE: Record<Locale, Catalogue> = {
  'pt-BR': {
    hello: (name) => (name === null ? 'Olá,' : `Olá, ${name},`),
    verification: {
      subject: (seller) => `${seller}: confirme seu e-mail`,
      lines: (w) => [
        `Confirme o e-mail da sua conta em ${w.seller} abrindo este link:`,
        '',
        w.link,
        '',
        `O link funciona uma vez e expira em ${w.lifetime}. Se você não criou esta conta, não o abra: outra pessoa escolheu a ` +
          'senha dela. Entre com um link de acesso ou redefina a senha, o que encerra o acesso dessa pessoa.',
      ],
    },
    passwordReset: {
      subject: (seller) => `${seller}: redefina sua senha`,
      lines: (w) => [
        `Alguém pediu para redefinir a senha da sua conta em ${w.seller}. Para escolher uma nova, abra este link:`,
        '',
        w.link,
        '',
        `O link funciona uma vez e expira em ${w.lifetime}. Se não foi você, ignore este e-mail: sua senha continua a mesma.`,
      ],
    },
    magicLink: {
      subject: (seller) => `${seller}: seu link de acesso`,
      lines: (w) => [
        `Abra este link para entrar em ${w.seller}:`,
        '',
        w.link,
        '',
        `O link funciona uma vez e expira em ${w.lifetime}. Se não foi você que pediu, ignore este e-mail.`,
      ],
    },
    waitingListOffer: {
      subject: (seller) => `${seller}: seus ingressos estão à sua espera`,
      lines: (w) => [
        w.quantity === 1
          ? `O ingresso que você esperava em ${w.seller} está reservado para você. Para comprá-lo, abra este link:`
          : `Os ${w.quantity} ingressos que você esperava em ${w.seller} estão reservados para você. Para comprá-los, abra este link:`,
        '',
        w.link,
        '',
        `A oferta vale por ${w.lifetime}, até ${w.until}; depois, ${w.quantity === 1 ? 'o ingresso passa' : 'os ingressos passam'} para a ` +
          'próxima pessoa da fila. O link funciona uma vez. Se não quiser mais, abra-o e recuse, para que passem adiante na hora.',
      ],
    },
  },
  en: {
    hello: (name) => `Hello ${name ?? 'there'},`,
    verification: {
      subject: (seller) => `Confirm your email address for ${seller}`,
      lines: (w) => [
        `Please confirm the email address of your ${w.seller} account by opening this link:`,
        '',
        w.link,
        '',
        `The link works once and expires in ${w.lifetime}. If you did not create this account, do not ` +
          'open it: someone else chose its password. Sign in with a magic link or reset the password instead, which ends their access.',
      ],
    },
    passwordReset: {
      subject: (seller) => `Reset your ${seller} password`,
      lines: (w) => [
        `Someone asked to reset the password of your ${w.seller} account. To choose a new one, open this link:`,
        '',
        w.link,
        '',
        `The link works once and expires in ${w.lifetime}. If you did not ask for it, ignore this email: your password stays as it is.`,
      ],
    },
    magicLink: {
      subject: (seller) => `Your ${seller} sign-in link`,
      lines: (w) => [
        `Open this link to sign in to ${w.seller}:`,
        '',
        w.link,
        '',
        `The link works once and expires in ${w.lifetime}. If you did not ask for it, ignore this email.`,
      ],
    },
    waitingListOffer: {
      subject: (seller) => `Tickets are waiting for you at ${seller}`,
      lines: (w) => [
        w.quantity === 1
          ? `The ticket you waited for at ${w.seller} is held for you. To buy it, open this link:`
          : `The ${w.quantity} tickets you waited for at ${w.seller} are held for you. To buy them, open this link:`,
        '',
        w.link,
        '',
        `The offer lasts ${w.lifetime}, until ${w.until}; then ${w.quantity === 1 ? 'the ticket goes' : 'the tickets go'} to the next person waiting. ` +
          'The link works once. If you no longer want them, open it and decline, so that they pass on at once.',
      ],
    },
  },
}

const wordsOf = (seller: EmailSeller) => CATALOGUE[seller.settings.locale]

/**
 * An email to one of the seller's buyers: greeted by first name when it is known, in the seller's
 * language, then `lines` (already in that language). Every buyer email is composed here, the order
 * emails (order-emails.ts) too.
 */
export function composeBuyerEmail(kind: string, to: string, name: string | null, seller: EmailSeller, subject: string, lines: string[]): EmailMessage {
  return { kind, to, subject, text: [wordsOf(seller).hello(name), '', ...lines, ''].join('\n') }
}

type LinkKind = 'verification' | 'passwordReset' | 'magicLink'

/** An email carrying a single-use link to a customer's account page. */
const linkEmail =
  (kind: string, key: LinkKind, page: StorefrontPage) =>
  (seller: EmailSeller, to: EmailRecipient, token: string, ttlSeconds: number): EmailMessage => {
    const words = wordsOf(seller)[key]
    const link = storefrontLink(seller.storefrontUrl, page, token)
    const lifetime = describeLifetime(ttlSeconds, seller.settings.locale)
    return composeBuyerEmail(kind, to.email, to.firstName, seller, words.subject(seller.name), words.lines({ seller: seller.name, link, lifetime }))
  }

export const verificationEmail = linkEmail('stf.verify_email', 'verification', 'verify-email')
export const passwordResetEmail = linkEmail('stf.reset_password', 'passwordReset', 'reset-password')
export const magicLinkEmail = linkEmail('stf.magic_link', 'magicLink', 'magic-link')

/** What a waiting list offer email tells: to whom, how many tickets, and from when until when they are held. */
export type OfferEmailEntry = { email: string; name: string | null; quantity: number; offeredAt: Date; offerExpiresAt: Date }

/** The offer of a waiting list (docs/waiting-list.md): the tickets held for the entry, its single-use link and until when it lasts. */
export function waitingListOfferEmail(seller: EmailSeller, entry: OfferEmailEntry, token: string): EmailMessage {
  const words = wordsOf(seller).waitingListOffer
  const minutes = Math.round((entry.offerExpiresAt.getTime() - entry.offeredAt.getTime()) / 60_000)
  return composeBuyerEmail(
    'stf.waiting_list_offer',
    entry.email,
    entry.name,
    seller,
    words.subject(seller.name),
    words.lines({
      seller: seller.name,
      link: storefrontLink(seller.storefrontUrl, 'waiting-list/accept', token),
      quantity: entry.quantity,
      lifetime: describeLifetime(minutes * 60, seller.settings.locale),
      until: describeInstant(entry.offerExpiresAt, seller),
    }),
  )
}
