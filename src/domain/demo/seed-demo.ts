import { randomBytes } from 'node:crypto'
import { count } from 'drizzle-orm'
import type { Db } from '../../platform/db/database.js'
import type { AuditActor } from '../audit/record-audit.js'
import { createBasket } from '../baskets/create-basket.js'
import { createEvent } from '../catalog/create-event.js'
import { createInventory } from '../catalog/create-inventory.js'
import type { EventVenue } from '../catalog/events.table.js'
import type { InventoryVariant } from '../catalog/inventories.table.js'
import { createDevice } from '../checkin/create-device.js'
import { createCheckinList } from '../checkin/save-checkin-list.js'
import type { TicketCodes } from '../checkin/ticket-codes.js'
import { createCoupon } from '../coupons/create-coupon.js'
import { confirmEmail } from '../customers/customers.repo.js'
import { registerCustomer } from '../customers/register-customer.js'
import { placeOrder } from '../orders/place-order.js'
import { payOrder } from '../payments/pay-order.js'
import { createSeatingPlan } from '../seating/create-seating-plan.js'
import { gridPlan } from '../seating/grid-plan.js'
import { createAffiliate } from '../sellers/create-affiliate.js'
import { createSeller } from '../sellers/create-seller.js'
import { settingsOf } from '../sellers/seller-settings.js'
import type { SellerRow } from '../sellers/sellers.repo.js'
import { sellers } from '../sellers/sellers.table.js'
import { bootstrapAdmin } from '../staff/bootstrap-admin.js'

export type SeedDemoOptions = {
  tokenHmac: Buffer
  /** Signs the demo order's tickets' codes. */
  codes: TicketCodes
  /** How long the demo buyer's email verification link works (`STF_VERIFY_EMAIL_TTL_SECONDS`). */
  verifyEmailTtlSeconds: number
  /** The bootstrap admin's email (`ADMIN_EMAIL`), when one is configured: no demo admin then. */
  adminEmail?: string | undefined
  /** Event dates count from this instant's day in the seller's time zone (default: now). */
  today?: Date
}

export const DEMO_ADMIN_EMAIL = 'admin@boxoffice.local'

/** The demo buyer, a customer of the demo seller (renew-demo-credentials.ts gives her a new password). */
export const DEMO_BUYER_EMAIL = 'maria.demo@example.com'

/** The `source` of the demo's events: how the demo seller is found again (renew-demo-credentials.ts). */
export const DEMO_EVENT_SOURCE = 'demo'

export type DemoData = {
  sellerId: string
  /** Shown once: only its hash is stored. */
  apiKey: string
  eventIds: string[]
  couponCode: string
  affiliateCode: string
  /**
   * The staff login: the configured admin (password null: the one configured), or a demo
   * admin with a generated password shown this once; null when staff users already existed.
   */
  admin: { email: string; password: string | null } | null
  /** The demo buyer's storefront login, her password shown this once (her address counts as confirmed). */
  buyer: { email: string; password: string }
  /** What a first scan at the door needs (docs/door.md). */
  checkin: DemoCheckin
  /** A sold-out inventory with its waiting list on, and the order that bought it out (cancel it to serve the list). */
  waitingList: { inventoryId: string; orderId: string }
  /** The theatre: its plan, and the event selling it on one date, a seated inventory per category (docs/seating.md). */
  seating: DemoSeating
  /** The event sold by pix awaiting payment, with an order awaiting it and one paid after awaiting it (docs/payments.md). */
  awaitPayment: DemoAwaitPayment
}

export type DemoAwaitPayment = {
  eventId: string
  eventTitle: string
  date: string
  /** Its one inventory, without variants: a ticket costs `price`, what a pix checkout of one owes. */
  inventoryId: string
  price: number
  /** An order of two tickets awaiting its pix until `paymentDueAt` (then it expires, its tickets back on sale). */
  pendingOrderId: string
  paymentDueAt: string
  /** An order of two tickets checked out awaiting pix, then paid. */
  paidOrderId: string
}

export type DemoSeating = {
  planId: string
  eventId: string
  eventTitle: string
  date: string
  /** The inventories by category: `Plateia` (rows A–F) and `Balcão` (rows G–J). */
  inventoryIds: { plateia: string; balcao: string }
  /** The ids of the two seats a best-available hold of two in the Plateia takes on a new demo: the middle of row A, by the aisle. */
  bestTwo: [string, string]
}

export type DemoCheckin = {
  deviceId: string
  /** The scanner device's pairing code, shown once: only its keyed hash is stored; works once, within 24 h. */
  pairingCode: string
  /**
   * A second scanner device, waiting to be paired: README.md's quickstart pairs it, so that the quickstart works
   * whether or not the banner's check-in lines paired the first (a pairing code works once).
   */
  secondDevice: { deviceId: string; pairingCode: string }
  /** The "Main entrance" list of each demo event, in the order of `eventIds`. */
  listIds: string[]
  /** Tonight's show's inventory (the stand-up's Plateia): what a ticket bought now is for, so that it scans `ok` at once. */
  inventoryId: string
  /** A confirmed order for a show dated today, so that its tickets scan `ok` at once. */
  orderId: string
  /** Its tickets' identifiers. */
  identifiers: string[]
  /** The list that admits them; the event's title and the tickets' date, show time and doors (`HH:MM`, the seller's clock). */
  listId: string
  eventTitle: string
  date: string
  time: string
  doorsTime: string
}

const actor: AuditActor = { type: 'system' }

/** The date of `instant` in a time zone, `YYYY-MM-DD` (the Canadian format is ISO's). */
const dateIn = (instant: Date, timeZone: string) =>
  new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(instant)

/** The local time of `instant` in a time zone, `HH:MM` (00:00 to 23:59). */
const timeIn = (instant: Date, timeZone: string) =>
  new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(instant)

/** The date `offset` days after `date`. */
const day = (date: string, offset: number) => new Date(Date.parse(`${date}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10)

/** Full price, and half price (meia-entrada, by law for students, teachers and over-60s). */
const meia = (price: number) => [
  { name: 'Inteira', description: 'Full price', type: 'full' },
  { name: 'Meia-entrada', description: 'Students, teachers and over-60s, with proof at the door', type: 'half', price: Math.round(price / 2) },
]

/** An inventory of a demo event, on each of the event's days (or only on `days`). */
type DemoInventory = { name: string; price: number; capacity: number; variants: InventoryVariant[]; waiting_list?: boolean; days?: number[] }

/** When a demo show starts and its doors open (`HH:MM`, the seller's clock). */
type ShowTimes = { time: string; doors_time: string }

/** A demo event: where it is, its days from the seed's today, when its shows start, and what it sells. */
type DemoEvent = { title: string; description: string; image: string; venue: EventVenue; days: number[]; show: ShowTimes; inventories: DemoInventory[] }

const CATALOGUE: DemoEvent[] = [
  {
    title: 'Festival de Jazz de Inverno',
    description: 'Two nights of jazz under the stars, with local and international bands.',
    image: 'https://images.example.com/demo/jazz.jpg',
    venue: { name: 'Parque das Árvores — Palco Sul', address: 'Avenida das Árvores, 1000', city: 'São Paulo', state: 'SP', country: 'BR' },
    days: [7, 8],
    show: { time: '20:00', doors_time: '18:30' },
    inventories: [
      { name: 'Pista', price: 12_000, capacity: 500, variants: meia(12_000) },
      { name: 'Camarote', price: 35_000, capacity: 40, variants: [] },
    ],
  },
  {
    title: 'Stand-up: Noite de Risadas',
    description: 'Four comedians, one microphone.',
    image: 'https://images.example.com/demo/standup.jpg',
    venue: { name: 'Bar do Riso', address: 'Rua Augusta, 1500', city: 'São Paulo', state: 'SP', country: 'BR' },
    // Tonight too: the demo order is for it, so that a scan at the door works right after start (its times: tonightTimes).
    days: [0, 14],
    show: { time: '21:00', doors_time: '20:00' },
    inventories: [
      { name: 'Plateia', price: 6_000, capacity: 200, variants: meia(6_000) },
      // The second show's front row, sold out by the demo, with its waiting list on (docs/waiting-list.md).
      { name: 'Primeira fila', price: 9_000, capacity: 2, variants: [], waiting_list: true, days: [14] },
    ],
  },
  {
    title: 'Orquestra Sinfônica: Clássicos do Cinema',
    description: 'Film scores from six decades, played live.',
    image: 'https://images.example.com/demo/orchestra.jpg',
    venue: { name: 'Sala de Concertos Demo', address: 'Praça Júlio Prestes, 16', city: 'São Paulo', state: 'SP', country: 'BR' },
    days: [21, 28],
    show: { time: '20:00', doors_time: '19:00' },
    inventories: [
      { name: 'Plateia', price: 9_000, capacity: 300, variants: meia(9_000) },
      { name: 'Balcão', price: 5_000, capacity: 150, variants: meia(5_000) },
    ],
  },
]

/** The event whose show tonight the demo order is for. */
const TONIGHT = 1

/** The latest tonight's doors open: the other nights' hour. */
const TONIGHT_DOORS = '19:00'

/**
 * Tonight's show, from the hour the demo is seeded (`now`, `HH:MM` on the seller's clock): doors
 * at 19:00, or at the seed's hour (to the half hour before) when that is earlier, and the show an
 * hour after its doors. The gates admit from 2 hours before the doors: the demo tickets scan `ok`
 * from the moment the demo starts, whatever its hour, until 06:00 tomorrow.
 */
export function tonightTimes(now: string): ShowTimes {
  const [hours, minutes] = now.split(':').map(Number) as [number, number]
  const halfHour = `${String(hours).padStart(2, '0')}:${minutes < 30 ? '00' : '30'}`
  const doors_time = halfHour < TONIGHT_DOORS ? halfHour : TONIGHT_DOORS
  const [doorsHours, doorsMinutes] = doors_time.split(':') as [string, string]
  return { time: `${String(Number(doorsHours) + 1).padStart(2, '0')}:${doorsMinutes}`, doors_time }
}

/**
 * A small theatre: 10 rows (A to J) of 14 seats with an aisle after the seventh, the stalls
 * (Plateia, rows A–F) and the balcony (Balcão, rows G–J), in pretix's plan format.
 */
const THEATRE = gridPlan({
  name: 'Teatro Demo',
  zone: 'Teatro',
  rows: 10,
  seatsPerRow: 14,
  aisleAfter: 7,
  rowNames: [...'ABCDEFGHIJ'],
  categories: [
    { name: 'Plateia', color: '#c0392b', rows: [0, 1, 2, 3, 4, 5] },
    { name: 'Balcão', color: '#2874a6', rows: [6, 7, 8, 9] },
  ],
})

/**
 * The event sold by pix awaiting payment (docs/payments.md): a checkout with `await_payment` keeps its
 * tickets for the seller's `payment_minutes` of pix (30 by default) until the payment is recorded.
 */
const PIX = {
  title: 'Pix na hora — pague em 30 minutos',
  description: 'A forró night sold by pix awaiting payment: your tickets are kept for 30 minutes while you pay the pix, then go back on sale.',
  image: 'https://images.example.com/demo/forro.jpg',
  venue: { name: 'Casa do Forró Demo', address: 'Rua Teodoro Sampaio, 400', city: 'São Paulo', state: 'SP', country: 'BR' },
  day: 5,
  show: { time: '22:00', doors_time: '21:00' },
  inventory: { name: 'Pista', price: 4_000, capacity: 100 },
} as const

/** The seated event: a play on one date, each category sold by its own inventory. */
const PLAY = {
  title: 'Teatro: O Auto da Compadecida',
  description: 'The classic comedy of João Grilo and Chicó, with reserved seats.',
  image: 'https://images.example.com/demo/theatre.jpg',
  venue: { name: 'Teatro Demo', address: 'Rua Álvaro de Carvalho, 40', city: 'São Paulo', state: 'SP', country: 'BR' },
  day: 10,
  show: { time: '20:00', doors_time: '19:30' },
  inventories: [
    { category: 'Plateia', price: 8_000, variants: meia(8_000) },
    { category: 'Balcão', price: 5_000, variants: meia(5_000) },
  ],
} as const

/**
 * Seeds a database that has no seller yet with a demo seller: published events over the next
 * weeks (one of them tonight too), inventories with variants, a coupon and an affiliate, a
 * check-in list per event and two scanner devices waiting to be paired, through the same services
 * the back office uses; a confirmed order for tonight, bought through a basket and a checkout as a
 * storefront does; an event sold by pix awaiting payment, with an order awaiting its pix and one
 * paid after awaiting it; a buyer who can sign in with a password shown once; and, unless an
 * admin is configured, a demo admin when no staff user exists.
 * Answers null, and changes nothing, when a seller already exists.
 */
export async function seedDemo(db: Db, options: SeedDemoOptions): Promise<DemoData | null> {
  const { tokenHmac, adminEmail, today = new Date() } = options
  const [existing] = await db.select({ n: count() }).from(sellers)
  if ((existing?.n ?? 0) > 0) return null

  const { seller, apiKey } = await createSeller(db, {
    name: 'Demo Tickets',
    storefrontUrl: 'http://localhost:8080',
    settings: { max_installments: 10, interest_free_installments: 3 },
    tokenHmac,
    actor,
  })
  const sellerId = seller.id
  // The seller's today, the day `take_tickets` sells from and gates admit on.
  const first = dateIn(today, seller.timezone)
  const tonightShow = tonightTimes(timeIn(today, seller.timezone))
  const eventIds: string[] = []
  const listIds: string[] = []
  let tonight: string | undefined
  let soldOut: string | undefined
  for (const [n, item] of CATALOGUE.entries()) {
    const event = await createDemoEvent(db, sellerId, item)
    eventIds.push(event.id)
    for (const offset of item.days) {
      for (const { days, ...inventory } of item.inventories) {
        if (days && !days.includes(offset)) continue
        const show = n === TONIGHT && offset === 0 ? tonightShow : item.show
        const created = await createInventory(db, { eventId: event.id, date: day(first, offset), ...inventory, ...show, actor })
        if (n === TONIGHT && offset === 0) tonight ??= created.id
        if (created.waitingList) soldOut ??= created.id
      }
    }
    listIds.push((await createCheckinList(db, { eventId: event.id, input: { name: 'Main entrance' }, actor })).id)
  }
  const seating = await demoSeating(db, sellerId, day(first, PLAY.day))
  eventIds.push(seating.eventId)
  listIds.push((await createCheckinList(db, { eventId: seating.eventId, input: { name: 'Main entrance' }, actor })).id)
  const pix = await demoPixEvent(db, sellerId, day(first, PIX.day))
  eventIds.push(pix.eventId)
  listIds.push((await createCheckinList(db, { eventId: pix.eventId, input: { name: 'Main entrance' }, actor })).id)
  const coupon = await createCoupon(db, { sellerId, code: 'BEMVINDO10', type: 'percent', value: 10, maxUsesPerCustomer: 1, actor })
  const affiliate = await createAffiliate(db, { sellerId, code: 'PARCEIRO', name: 'Demo partner', actor })
  const device = await createDevice(db, { sellerId, name: 'Demo scanner', tokenHmac, actor })
  const secondDevice = await createDevice(db, { sellerId, name: 'Demo scanner 2', tokenHmac, actor })
  const buyer = { email: DEMO_BUYER_EMAIL, password: randomBytes(18).toString('base64url') }
  const customer = await demoCustomer(db, seller, buyer, options)
  const order = await demoOrder(db, seller, customer, { inventoryId: tonight!, variant: 'Inteira', quantity: 2 }, options)
  const soldOutOrder = await demoOrder(db, seller, customer, { inventoryId: soldOut!, variant: null, quantity: 2 }, options)
  const pixItem = { inventoryId: pix.inventoryId, variant: null, quantity: 2 }
  const pendingOrder = await demoOrder(db, seller, customer, pixItem, options, { awaitPayment: true })
  const paidOrder = await demoOrder(db, seller, customer, pixItem, options, { awaitPayment: true })
  await payOrder(db, {
    codes: options.codes,
    orderId: paidOrder.id,
    sellerId,
    affiliate: null,
    amount: paidOrder.totals.total,
    reference: 'demo-pix',
    actor,
  })
  return {
    sellerId,
    apiKey,
    eventIds,
    couponCode: coupon.code,
    affiliateCode: affiliate.code,
    admin: await demoAdmin(db, adminEmail),
    buyer,
    checkin: {
      deviceId: device.id,
      pairingCode: device.pairing_code,
      secondDevice: { deviceId: secondDevice.id, pairingCode: secondDevice.pairing_code },
      listIds,
      inventoryId: tonight!,
      orderId: order.id,
      identifiers: order.tickets.map((ticket) => ticket.identifier),
      listId: listIds[TONIGHT]!,
      eventTitle: CATALOGUE[TONIGHT]!.title,
      date: first,
      time: tonightShow.time,
      doorsTime: tonightShow.doors_time,
    },
    waitingList: { inventoryId: soldOut!, orderId: soldOutOrder.id },
    seating,
    awaitPayment: { ...pix, pendingOrderId: pendingOrder.id, paymentDueAt: pendingOrder.payment_due_at!, paidOrderId: paidOrder.id },
  }
}

/** A published demo event, rated for all ages, with its cover and venue. */
const createDemoEvent = (db: Db, sellerId: string, item: { title: string; description: string; image: string; venue: EventVenue }) =>
  createEvent(db, {
    sellerId,
    title: item.title,
    description: item.description,
    venue: item.venue,
    status: 'published',
    source: DEMO_EVENT_SOURCE,
    attributes: [{ name: 'Classificação', scope: 'event', text: 'Livre para todos os públicos', type: 'rating', value: 'L' }],
    images: [{ name: 'Cover', credits: 'Demo', mime_type: 'image/jpeg', url: item.image }],
    actor,
  })

/** The theatre's plan and the play selling it: a published event on `date`, a seated inventory per category. */
async function demoSeating(db: Db, sellerId: string, date: string): Promise<DemoSeating> {
  const plan = await createSeatingPlan(db, { sellerId, name: THEATRE.name, plan: THEATRE, actor })
  const event = await createDemoEvent(db, sellerId, PLAY)
  const ids: string[] = []
  for (const { category, price, variants } of PLAY.inventories) {
    const seating = { plan_id: plan.id, category }
    const created = await createInventory(db, { eventId: event.id, date, name: category, price, variants, seating, ...PLAY.show, actor })
    ids.push(created.id)
  }
  // Row A's seats 6 and 7, the front row's middle by the aisle after seat 7, by their `seat_guid`s (the seat ids of every answer).
  const rowA = THEATRE.zones[0]!.rows[0]!.seats
  const bestTwo: [string, string] = [rowA[5]!.seat_guid, rowA[6]!.seat_guid]
  return { planId: plan.id, eventId: event.id, eventTitle: PLAY.title, date, inventoryIds: { plateia: ids[0]!, balcao: ids[1]! }, bestTwo }
}

/** The pix event: published on `date`, one inventory without variants. */
async function demoPixEvent(db: Db, sellerId: string, date: string) {
  const event = await createDemoEvent(db, sellerId, PIX)
  const inventory = await createInventory(db, { eventId: event.id, date, ...PIX.inventory, ...PIX.show, variants: [], actor })
  return { eventId: event.id, eventTitle: PIX.title, date, inventoryId: inventory.id, price: PIX.inventory.price }
}

/**
 * The demo buyer: a registered customer, whose verification email goes to the outbox like any
 * other. Her address (example.com) can receive nothing, so it is taken as confirmed, as if she had
 * followed the link: she signs in with the password printed once, as the seller's
 * `login_requires_verified_email` (on by default) asks.
 */
async function demoCustomer(db: Db, seller: SellerRow, buyer: DemoData['buyer'], options: SeedDemoOptions) {
  const customer = await registerCustomer(db, {
    seller: { ...seller, settings: settingsOf(seller) },
    email: buyer.email,
    password: buyer.password,
    firstName: 'Maria',
    lastName: 'Demo',
    tokenHmac: options.tokenHmac,
    verifyEmailTtlSeconds: options.verifyEmailTtlSeconds,
  })
  return (await confirmEmail(db, customer.id, { clearPassword: false })).customer
}

/**
 * Tickets bought as a storefront buys them: a basket that holds them, and a checkout paid by pix
 * (two full-price tickets for tonight; the whole front row of the stand-up's second show), or,
 * with `awaitPayment`, awaiting the pix for the seller's `payment_minutes`.
 */
async function demoOrder(
  db: Db,
  seller: SellerRow,
  customer: { id: string },
  item: { inventoryId: string; variant: string | null; quantity: number },
  options: SeedDemoOptions,
  { awaitPayment = false }: { awaitPayment?: boolean } = {},
) {
  const settings = settingsOf(seller)
  const basket = await createBasket(db, {
    sellerId: seller.id,
    ttlSeconds: settings.basket_ttl_seconds,
    affiliate: null,
    customerId: customer.id,
    items: [item],
    actor,
  })
  const { body } = await placeOrder(db, {
    codes: options.codes,
    sellerId: seller.id,
    affiliate: null,
    basketId: basket.body.id,
    customerId: customer.id,
    settings,
    paymentMethod: 'pix',
    ...(awaitPayment ? { awaitPayment, paymentMinutes: settings.payment_minutes } : { paymentReference: 'demo' }),
    actor,
  })
  return body
}

async function demoAdmin(db: Db, adminEmail: string | undefined): Promise<DemoData['admin']> {
  if (adminEmail) return { email: adminEmail, password: null }
  const password = randomBytes(18).toString('base64url')
  const created = await bootstrapAdmin(db, { name: 'Demo admin', email: DEMO_ADMIN_EMAIL, password })
  return created ? { email: DEMO_ADMIN_EMAIL, password } : null
}
