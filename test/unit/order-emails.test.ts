import { describe, expect, it } from 'vitest'
import { type OrderEmailContext, orderConfirmedEmail, orderExpiredEmail, orderPendingEmail, refundEmail } from '../../src/domain/orders/order-emails.js'
import type { OrderView } from '../../src/domain/orders/order-view.js'
import type { RefundView } from '../../src/domain/payments/payment-views.js'

// 19:40 UTC is 16:40 on Saturday in São Paulo (UTC-3, no daylight saving since 2019) and 01:10 on
// Sunday in Kolkata (UTC+5:30): an email that wrote UTC, or the wrong zone, shows another day or hour.
const DUE = '2026-11-28T19:40:53.024Z'
const DONE = '2026-12-01T13:05:00.000Z' // 10:05 in São Paulo, 18:35 in Kolkata

const FESTIVAL = '11111111-1111-4111-8111-111111111111'
const THEATRE = '22222222-2222-4222-8222-222222222222'
const FLOOR = '33333333-3333-4333-8333-333333333333'
const STALLS = '44444444-4444-4444-8444-444444444444'

const context = (locale: 'pt-BR' | 'en', timezone: string, name: string | null): OrderEmailContext => ({
  seller: { name: 'Loja Azul', storefrontUrl: 'https://azul.example.com/loja', settings: { locale, timezone } },
  to: { email: 'ana@example.com', name },
  guest: false,
  eventTitles: new Map([
    [FESTIVAL, 'Festival de Verão'],
    [THEATRE, 'Hamlet'],
  ]),
})
const saoPaulo = context('pt-BR', 'America/Sao_Paulo', 'Ana')
const kolkata = context('en', 'Asia/Kolkata', 'Ana')

const item = (over: Partial<OrderView['items'][number]>): OrderView['items'][number] => ({
  id: '55555555-5555-4555-8555-555555555555',
  inventory_id: FLOOR,
  event_id: FESTIVAL,
  date: '2026-12-12',
  name: 'Pista',
  variant: null,
  quantity: 1,
  unit_price: 5000,
  discount: 0,
  total: 5000,
  coupon: null,
  seats: null,
  time: null,
  doors_time: null,
  venue: null,
  ...over,
})

const ticket = (identifier: string, over: Partial<OrderView['tickets'][number]> = {}): OrderView['tickets'][number] => ({
  identifier,
  inventory_id: FLOOR,
  variant: 'Meia',
  status: 'pending',
  seat: null,
  holder: { name: 'Ana Lima', document: null },
  code_version: 0,
  transferred_to: null,
  first_access_at: null,
  code: null,
  ...over,
})

const seat = { id: '66666666-6666-4666-8666-666666666666', zone: 'Plateia', row: 'A', number: '7', category: 'standard' }

/** Two half-price floor tickets of the festival and a seat for Hamlet: R$ 1.234,56 by Pix, due on the 28th. */
const pending: OrderView = {
  id: '77777777-7777-4777-8777-777777777777',
  status: 'pending',
  source: 'checkout',
  transferred_from: null,
  customer_id: '88888888-8888-4888-8888-888888888888',
  buyer: { email: 'ana@example.com', name: 'Ana Lima' },
  affiliate_code: null,
  items: [
    item({ variant: 'Meia', quantity: 2, unit_price: 50_000, total: 100_000 }),
    item({ inventory_id: STALLS, event_id: THEATRE, date: '2027-01-09', name: 'Plateia', unit_price: 23_456, total: 23_456, seats: [seat] }),
  ],
  totals: { subtotal: 123_456, discount: 0, interest: 0, total: 123_456 },
  payment: { method: 'pix', installments: 1, installment_amount: 123_456, reference: null },
  payment_due_at: DUE,
  paid_total: 0,
  refunded_total: 0,
  payments: [],
  refunds: [],
  tickets: [ticket('K7QAAAAAAAAA'), ticket('K7QBBBBBBBBB'), ticket('K7QCCCCCCCCC', { inventory_id: STALLS, variant: null, seat })],
  created_at: '2026-11-28T19:10:53.024Z',
  seller_id: '99999999-9999-4999-8999-999999999999',
  cancelled_at: null,
}

const paid: OrderView = {
  ...pending,
  status: 'confirmed',
  paid_total: 123_456,
  tickets: pending.tickets.map((t) => ({ ...t, status: 'valid', code: `code-${t.identifier}` })),
}

/** No instant in UTC ISO form, nor the UTC clock of the instants, nor an ISO date. */
function expectNoUtc(text: string) {
  expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T/)
  expect(text).not.toMatch(/\b2026-12-12\b|\b2027-01-09\b/)
  expect(text).not.toContain('19:40')
  expect(text).not.toContain('UTC')
}

describe('orderPendingEmail', () => {
  it('pt-BR: what is owed in reais, by which method, the items, and until when on the São Paulo clock', () => {
    const email = orderPendingEmail(saoPaulo, pending)
    expect(email).toMatchObject({ kind: 'stf.order_pending', to: 'ana@example.com', subject: 'Loja Azul: seu pedido aguarda pagamento' })
    expect(email.text).toMatch(/^Olá, Ana,\n/)
    expect(email.text).toContain('pague R$ 1.234,56 via Pix até sábado, 28 de novembro de 2026 às 16:40')
    expect(email.text).toContain(`Pedido ${pending.id}:`)
    expect(email.text).toContain('- 2 × Festival de Verão — Pista · Meia, sábado, 12 de dezembro de 2026')
    expect(email.text).toContain('- 1 × Hamlet — Plateia, sábado, 9 de janeiro de 2027')
    expect(email.text).toContain('o pedido expira e eles voltam à venda')
    expectNoUtc(email.text)
  })

  it('en: the amount written the English way, a card in installments, and the deadline on the Kolkata clock (the next day)', () => {
    const email = orderPendingEmail(kolkata, { ...pending, payment: { ...pending.payment, method: 'credit_card', installments: 3 }, paid_total: 0 })
    expect(email.subject).toBe('Your Loja Azul order awaits payment')
    expect(email.text).toMatch(/^Hello Ana,\n/)
    expect(email.text).toMatch(/pay R\$1,234\.56 by credit card in 3 installments no later than Sunday, November 29, 2026 at 1:10\sAM/)
    expect(email.text).toContain('- 2 × Festival de Verão — Pista · Meia, Saturday, December 12, 2026')
    expectNoUtc(email.text)
    expect(email.text).not.toContain('Olá')
  })

  it('asks only for what is still outstanding, and greets without a name when none is known', () => {
    const pt = orderPendingEmail(context('pt-BR', 'America/Sao_Paulo', null), { ...pending, payment: { ...pending.payment, method: 'boleto' } })
    expect(pt.text).toMatch(/^Olá,\n/)
    expect(pt.text).toContain('pague R$ 1.234,56 via boleto até')
    const en = orderPendingEmail(context('en', 'America/Sao_Paulo', null), { ...pending, paid_total: 23_456 })
    expect(en.text).toMatch(/^Hello there,\n/)
    expect(en.text).toMatch(/pay R\$1,000\.00 by Pix no later than Saturday, November 28, 2026 at 4:40\sPM/)
    // Without a deadline (never for an order awaiting payment, but the view allows it), the sentence still ends.
    expect(orderPendingEmail(saoPaulo, { ...pending, payment_due_at: null }).text).toContain('pague R$ 1.234,56 via Pix.\n')
  })
})

describe('orderConfirmedEmail', () => {
  it('pt-BR: the payment, each valid ticket (event, inventory, date, seat, identifier) and where to find them', () => {
    const voided = { ...paid, tickets: paid.tickets.map((t) => (t.identifier === 'K7QBBBBBBBBB' ? { ...t, status: 'voided' as const } : t)) }
    const email = orderConfirmedEmail(saoPaulo, voided)
    expect(email).toMatchObject({ kind: 'stf.order_confirmed', to: 'ana@example.com', subject: 'Loja Azul: seus ingressos' })
    expect(email.text).toMatch(/^Olá, Ana,\n/)
    expect(email.text).toContain(`Recebemos o pagamento de R$ 1.234,56 do seu pedido ${paid.id} em Loja Azul.`)
    expect(email.text).toContain('- Ingresso K7QAAAAAAAAA: Festival de Verão — Pista · Meia, sábado, 12 de dezembro de 2026\n')
    expect(email.text).toContain('- Ingresso K7QCCCCCCCCC: Hamlet — Plateia, sábado, 9 de janeiro de 2027, Plateia · Fila A · Assento 7')
    expect(email.text).not.toContain('K7QBBBBBBBBB')
    expect(email.text).toContain('Eles estão na sua conta em https://azul.example.com/loja')
    expect(email.text).not.toContain('code-')
    expectNoUtc(email.text)
  })

  it('en: the same in English, the seat in English words', () => {
    const email = orderConfirmedEmail(kolkata, paid)
    expect(email.subject).toBe('Your tickets from Loja Azul')
    expect(email.text).toContain(`We received your payment of R$1,234.56 for order ${paid.id} at Loja Azul.`)
    expect(email.text).toContain('- Ticket K7QAAAAAAAAA: Festival de Verão — Pista · Meia, Saturday, December 12, 2026')
    expect(email.text).toContain('- Ticket K7QBBBBBBBBB: Festival de Verão — Pista · Meia, Saturday, December 12, 2026')
    expect(email.text).toContain('- Ticket K7QCCCCCCCCC: Hamlet — Plateia, Saturday, January 9, 2027, Plateia · Row A · Seat 7')
    expect(email.text).toContain('They are in your account at https://azul.example.com/loja: sign in with this email address')
    expectNoUtc(email.text)
  })

  it('says nothing of a payment for a free order', () => {
    const free = { ...paid, totals: { subtotal: 0, discount: 0, interest: 0, total: 0 }, paid_total: 0 }
    expect(orderConfirmedEmail(saoPaulo, free).text).toContain(`Seu pedido ${paid.id} em Loja Azul está confirmado.`)
    expect(orderConfirmedEmail(kolkata, free).text).toContain(`Your order ${paid.id} at Loja Azul is confirmed.`)
    expect(orderConfirmedEmail(kolkata, free).text).not.toContain('R$')
  })
})

describe('orderExpiredEmail', () => {
  const expired: OrderView = { ...pending, status: 'expired', tickets: pending.tickets.map((t) => ({ ...t, status: 'expired' })) }

  it('pt-BR: when the time to pay ran out on the São Paulo clock, the items back on sale, and where to order again', () => {
    const email = orderExpiredEmail(saoPaulo, expired)
    expect(email).toMatchObject({ kind: 'stf.order_expired', subject: 'Loja Azul: seu pedido expirou' })
    expect(email.text).toContain(`O prazo para pagar seu pedido ${pending.id} em Loja Azul terminou em sábado, 28 de novembro de 2026 às 16:40`)
    expect(email.text).toContain('O pedido expirou e estes ingressos voltaram à venda:')
    expect(email.text).toContain('- 2 × Festival de Verão — Pista · Meia, sábado, 12 de dezembro de 2026')
    expect(email.text).toContain('faça um novo pedido em https://azul.example.com/loja')
    expectNoUtc(email.text)
  })

  it('en: on the Kolkata clock', () => {
    const email = orderExpiredEmail(kolkata, expired)
    expect(email.subject).toBe('Your Loja Azul order has expired')
    expect(email.text).toMatch(/ran out on Sunday, November 29, 2026 at 1:10\sAM/)
    expect(email.text).toContain('these tickets went back on sale:')
    expect(email.text).toContain('- 1 × Hamlet — Plateia, Saturday, January 9, 2027')
    expectNoUtc(email.text)
  })
})

describe('refundEmail', () => {
  const refund: RefundView = {
    id: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa',
    order_id: paid.id,
    amount: 45_000,
    tickets: ['K7QAAAAAAAAA'],
    reason: 'customer asked',
    status: 'pending',
    reference: null,
    created_at: '2026-12-01T12:00:00.000Z',
    done_at: null,
  }
  const voided: OrderView = { ...paid, tickets: paid.tickets.map((t) => (t.identifier === 'K7QAAAAAAAAA' ? { ...t, status: 'voided' } : t)) }

  it('pt-BR: a pending refund, its amount and the tickets it cancelled', () => {
    const email = refundEmail(saoPaulo, voided, refund)
    expect(email).toMatchObject({ kind: 'stf.order_refunded', to: 'ana@example.com', subject: 'Loja Azul: reembolso de R$ 450,00' })
    expect(email.text).toMatch(/^Olá, Ana,\n/)
    expect(email.text).toContain(`Loja Azul registrou um reembolso de R$ 450,00 do seu pedido ${paid.id}. Ele está em andamento`)
    expect(email.text).toContain('O reembolso cobre estes ingressos, que foram cancelados e não valem mais na entrada:')
    expect(email.text).toContain('- Ingresso K7QAAAAAAAAA: Festival de Verão — Pista · Meia, sábado, 12 de dezembro de 2026')
    expect(email.text).not.toContain('K7QBBBBBBBBB')
    expect(email.text).not.toContain('Seu pedido foi cancelado')
    expect(email.text).not.toContain('customer asked')
    expectNoUtc(email.text)
  })

  it('en: a done refund with when it was done on the Kolkata clock', () => {
    const email = refundEmail(kolkata, voided, { ...refund, status: 'done', reference: 'rf-1', done_at: DONE })
    expect(email.subject).toBe('Your Loja Azul refund of R$450.00')
    expect(email.text).toMatch(
      new RegExp(`The refund of R\\$450\\.00 for your order ${paid.id} at Loja Azul was completed on Tuesday, December 1, 2026 at 6:35\\sPM`),
    )
    expect(email.text).toContain('- Ticket K7QAAAAAAAAA: Festival de Verão — Pista · Meia, Saturday, December 12, 2026')
    expectNoUtc(email.text)
    expect(email.text).not.toContain('13:05')
  })

  it('a refund of what was left, with no tickets named, of an order now cancelled: no ticket list, and the order said cancelled', () => {
    const cancelled: OrderView = { ...paid, status: 'cancelled', tickets: paid.tickets.map((t) => ({ ...t, status: 'voided' })) }
    const whole = { ...refund, amount: 123_456, tickets: [], status: 'done' as const, done_at: DONE }
    const pt = refundEmail(saoPaulo, cancelled, whole)
    expect(pt.text).toContain('foi concluído em terça-feira, 1 de dezembro de 2026 às 10:05')
    expect(pt.text).toContain('R$ 1.234,56')
    expect(pt.text).toContain('Seu pedido foi cancelado.')
    expect(pt.text).not.toContain('Ingresso')
    const en = refundEmail(kolkata, cancelled, whole)
    expect(en.text).toContain('Your order has been cancelled.')
    expect(en.text).not.toContain('Ticket ')
    for (const email of [pt, en]) expectNoUtc(email.text)
  })
})

describe('the show times and venue of an item (docs/selling.md)', () => {
  const venue = { name: 'Arena Azul', address: 'Rua Augusta, 123', city: 'São Paulo', state: 'SP', country: 'BR' }
  const shown: OrderView = {
    ...paid,
    items: [
      item({ variant: 'Meia', quantity: 2, time: '09:05', doors_time: '08:00', venue }),
      item({ inventory_id: STALLS, event_id: THEATRE, name: 'Plateia', venue: { name: 'Teatro' } }),
    ],
  }

  it('pt-BR: the start on the date (as the seller wrote it, no time zone applied), the doors, and where', () => {
    const text = orderConfirmedEmail(saoPaulo, shown).text
    expect(text).toContain(
      '- Ingresso K7QAAAAAAAAA: Festival de Verão — Pista · Meia, sábado, 12 de dezembro de 2026 às 09:05 (abertura dos portões às 08:00), ' +
        'Arena Azul (Rua Augusta, 123, São Paulo, SP, Brasil)\n',
    )
    expect(text).toContain('- Ingresso K7QCCCCCCCCC: Hamlet — Plateia, sábado, 12 de dezembro de 2026, Teatro, Plateia · Fila A · Assento 7')
    expect(orderPendingEmail(saoPaulo, { ...shown, status: 'pending' }).text).toContain(
      '- 2 × Festival de Verão — Pista · Meia, sábado, 12 de dezembro de 2026 às 09:05',
    )
  })

  it('en: the same in English words and clock, on the Kolkata seller too (a show time is local already)', () => {
    const text = orderConfirmedEmail(kolkata, shown).text
    expect(text).toMatch(
      /- Ticket K7QAAAAAAAAA: Festival de Verão — Pista · Meia, Saturday, December 12, 2026 at 9:05\sAM \(doors at 8:00\sAM\), Arena Azul \(Rua Augusta, 123, São Paulo, SP, Brazil\)\n/,
    )
  })
})
