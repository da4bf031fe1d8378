import type { EmailMessage } from '../../platform/mail/outbox.repo.js'
import { composeBuyerEmail, describeInstant, storefrontLink } from '../customers/customer-emails.js'
import { describeItem, type OrderEmailContext } from '../orders/order-emails.js'
import type { OrderItemView } from '../orders/order-view.js'
import type { Locale } from '../sellers/seller-settings.js'

// The emails of a transfer (docs/transfers.md), in the seller's language as every buyer email is:
// the offer to the recipient, the answer to the sender, and the recipient's notice when the sale
// of a ticket received is undone. The accepted ticket itself is sent as an order's tickets are.

/** What the offer says: who gives what, until when, and the link that accepts or declines it. */
type OfferWords = { seller: string; sender: string; ticket: string; until: string; link: string }
/** What the sender hears: who answered, about which ticket. */
type AnswerWords = { seller: string; recipient: string; identifier: string; ticket: string }
/** What the recipient hears when the sale of a ticket received is undone. */
type VoidWords = { seller: string; identifier: string; ticket: string }

type TransferCatalogue = {
  offered: { subject: (seller: string, sender: string) => string; lines: (w: OfferWords) => string[] }
  accepted: { subject: (seller: string) => string; lines: (w: AnswerWords) => string[] }
  declined: { subject: (seller: string) => string; lines: (w: AnswerWords) => string[] }
  voided: { subject: (seller: string) => string; lines: (w: VoidWords) => string[] }
}

const CATALOGUE: Record<Locale, TransferCatalogue> = {
  'pt-BR': {
    offered: {
      subject: (seller, sender) => `${seller}: ${sender} enviou um ingresso para você`,
      lines: (w) => [
        `${w.sender} quer transferir para você um ingresso em ${w.seller}:`,
        '',
        `- ${w.ticket}`,
        '',
        `Aceite (ou recuse) neste link até ${w.until}:`,
        w.link,
        '',
        'Ao aceitar, o ingresso passa a ser seu, com um código novo; o código anterior deixa de entrar.',
      ],
    },
    accepted: {
      subject: (seller) => `${seller}: seu ingresso foi transferido`,
      lines: (w) => [
        `${w.recipient} aceitou o ingresso ${w.identifier} (${w.ticket}) que você transferiu em ${w.seller}.`,
        '',
        'O ingresso agora é dessa pessoa: o código que você tinha não entra mais.',
      ],
    },
    declined: {
      subject: (seller) => `${seller}: sua transferência foi recusada`,
      lines: (w) => [
        `${w.recipient} recusou o ingresso ${w.identifier} (${w.ticket}) que você quis transferir em ${w.seller}.`,
        '',
        'O ingresso continua seu, com o mesmo código.',
      ],
    },
    voided: {
      subject: (seller) => `${seller}: um ingresso que você recebeu foi cancelado`,
      lines: (w) => [
        `O ingresso ${w.identifier} (${w.ticket}) que você recebeu por transferência em ${w.seller} foi cancelado: a compra que o originou foi cancelada ou reembolsada.`,
        '',
        'Ele não dá mais acesso ao evento.',
      ],
    },
  },
  en: {
    offered: {
      subject: (seller, sender) => `${seller}: ${sender} sent you a ticket`,
      lines: (w) => [
        `${w.sender} wants to give you a ticket at ${w.seller}:`,
        '',
        `- ${w.ticket}`,
        '',
        `Accept it (or decline it) with this link until ${w.until}:`,
        w.link,
        '',
        'Once you accept, the ticket is yours, with a new code; the earlier code no longer gets in.',
      ],
    },
    accepted: {
      subject: (seller) => `${seller}: your ticket was transferred`,
      lines: (w) => [
        `${w.recipient} accepted the ticket ${w.identifier} (${w.ticket}) you transferred at ${w.seller}.`,
        '',
        'The ticket is theirs now: the code you had no longer gets in.',
      ],
    },
    declined: {
      subject: (seller) => `${seller}: your transfer was declined`,
      lines: (w) => [
        `${w.recipient} declined the ticket ${w.identifier} (${w.ticket}) you offered at ${w.seller}.`,
        '',
        'The ticket is still yours, with the same code.',
      ],
    },
    voided: {
      subject: (seller) => `${seller}: a ticket you received was cancelled`,
      lines: (w) => [
        `The ticket ${w.identifier} (${w.ticket}) you received by a transfer at ${w.seller} was cancelled: the purchase it came from was cancelled or refunded.`,
        '',
        'It no longer gives access to the event.',
      ],
    },
  },
}

const wordsOf = (context: OrderEmailContext) => CATALOGUE[context.seller.settings.locale]

/** `{storefront_url}/transfer?token=<token>`: where the recipient accepts or declines. */
export const transferLinkOf = (storefrontUrl: string, token: string) => storefrontLink(storefrontUrl, 'transfer', token)

/** The offer, to the recipient (`to` replaces the order's buyer in `context`). */
export function transferOfferedEmail(
  context: OrderEmailContext,
  offer: { to: { email: string; name: string }; sender: string; item: OrderItemView; expiresAt: Date; token: string },
): EmailMessage {
  const words = wordsOf(context).offered
  return composeBuyerEmail(
    'stf.transfer_offered',
    offer.to.email,
    offer.to.name.trim().split(/\s+/)[0] || null,
    context.seller,
    words.subject(context.seller.name, offer.sender),
    words.lines({
      seller: context.seller.name,
      sender: offer.sender,
      ticket: describeItem(offer.item, context),
      until: describeInstant(offer.expiresAt, context.seller),
      link: transferLinkOf(context.seller.storefrontUrl, offer.token),
    }),
  )
}

/** The recipient's answer, to the sender (the order's buyer). */
export function transferAnsweredEmail(
  context: OrderEmailContext,
  answer: { accepted: boolean; recipient: string; identifier: string; item: OrderItemView },
): EmailMessage {
  const words = wordsOf(context)[answer.accepted ? 'accepted' : 'declined']
  return composeBuyerEmail(
    answer.accepted ? 'stf.transfer_accepted' : 'stf.transfer_declined',
    context.to.email,
    context.to.name,
    context.seller,
    words.subject(context.seller.name),
    words.lines({ seller: context.seller.name, recipient: answer.recipient, identifier: answer.identifier, ticket: describeItem(answer.item, context) }),
  )
}

/** A ticket received, voided with its sale, to its holder (the recipient's order's buyer). */
export function transferredTicketVoidedEmail(context: OrderEmailContext, ticket: { identifier: string; item: OrderItemView }): EmailMessage {
  const words = wordsOf(context).voided
  return composeBuyerEmail(
    'stf.transfer_voided',
    context.to.email,
    context.to.name,
    context.seller,
    words.subject(context.seller.name),
    words.lines({ seller: context.seller.name, identifier: ticket.identifier, ticket: describeItem(ticket.item, context) }),
  )
}
