import { existsSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.js'
import { findDemoSeller, renewDemoCredentials, type DemoCredentials } from './domain/demo/renew-demo-credentials.js'
import { seedDemo, type DemoData } from './domain/demo/seed-demo.js'
import { loadConfigOrExit } from './platform/config.js'
import { listenUrl } from './platform/http/public-base-url.js'

if (existsSync('.env')) process.loadEnvFile('.env')

const config = loadConfigOrExit()

const app = await buildApp({ config })

// Demo data only with the embedded database (a local trial, never a shared server), and only
// while it holds no seller: a new data folder is seeded once, later starts leave it alone.
let demo: DemoData | null = null
if (!config.databaseUrl && config.seedDemo) {
  try {
    demo = await seedDemo(app.db, {
      tokenHmac: app.secrets.tokenHmac,
      codes: app.ticketCodes,
      verifyEmailTtlSeconds: config.ttl.stfVerifyEmail,
      adminEmail: config.admin?.email,
    })
  } catch (error) {
    app.log.error({ err: error }, 'could not seed the demo data')
  }
}

// `npm run demo:credentials` starts the server with this flag: the demo's credentials were shown
// once and are stored hashed, so new ones are issued and printed. Here, in the one process that
// opens the embedded database (a second process must not open its files).
let renewed: DemoCredentials | null = null
if (process.argv.includes('--demo-credentials')) {
  if (config.databaseUrl) app.log.warn('demo credentials are for the embedded database (DATABASE_URL is set): none issued')
  else {
    renewed = await renewDemoCredentials(app.db, { tokenHmac: app.secrets.tokenHmac, adminEmail: config.admin?.email })
    if (!renewed) app.log.warn('no demo data in this database: no demo credentials issued')
  }
} else if (!demo && !config.databaseUrl) {
  const sellerId = await findDemoSeller(app.db)
  if (sellerId) app.log.info({ sellerId }, 'demo data present: `npm run demo:credentials` (with the server stopped) starts it and prints new demo credentials')
}

// SIGTERM/SIGINT: stop accepting, let in-flight requests finish (new ones get 503),
// close the pool and exit 0. A second signal or the delay running out forces the exit.
closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'shutting down after an uncaught error')
  else app.log.info({ signal }, 'shutting down')
  await app.close()
})

try {
  await app.listen({ port: config.port, host: config.host })
} catch (error) {
  app.log.fatal({ err: error }, 'could not listen')
  await app.close()
  process.exit(1)
}

// Phones pair from the devices' links: said once if they name a loopback address (checkin/loopback-pairing.ts).
await app.warnLoopbackPairingAtStart().catch((error: unknown) => app.log.warn({ err: error }, 'could not look for scanner devices in use'))

if (demo) process.stdout.write(demoBanner(demo, baseUrl()))
if (renewed) process.stdout.write(renewedBanner(renewed, baseUrl()))

/** Where the banner's lines call: the address the server listens on, from this machine (PUBLIC_BASE_URL may name a proxy in front). */
function baseUrl() {
  return listenUrl(config.host, (app.server.address() as AddressInfo).port)
}

/** A JSON body, as curl sends it. */
function json(body: object) {
  return `-H 'content-type: application/json' -d '${JSON.stringify(body)}'`
}

/** Reads a field out of the JSON answer piped in (node, so that no jq is needed). */
function field(name: string) {
  return `node -p 'JSON.parse(require("fs").readFileSync(0)).${name}'`
}

/**
 * What a newcomer needs to make a first call; the API key and the pairing codes are printed this
 * once. The variables that README.md's quickstart starts with, as one line to paste. The check-in
 * lines run as pasted, one after the other in one shell (no jq needed: node reads the token out of
 * the pairing answer), and so do the checkout lines and the pix lines.
 */
function demoBanner(data: DemoData, base: string) {
  const { checkin, seating } = data
  const quickstart = {
    BASE: base,
    SELLER: data.sellerId,
    KEY: data.apiKey,
    INVENTORY: checkin.inventoryId,
    LIST: checkin.listId,
    PAIRING: checkin.secondDevice.pairingCode,
  }
  return [
    '',
    'Demo data created (SEED_DEMO=false turns this off):',
    ...credentialLines({ sellerId: data.sellerId, apiKey: data.apiKey, admin: data.admin, buyer: data.buyer, pairingCode: checkin.pairingCode }, base),
    `  coupon:          ${data.couponCode}   affiliate code: ${data.affiliateCode}`,
    "  quickstart:      README.md's quickstart (a ticket sold, paid and scanned) starts with this line:",
    `    ${Object.entries(quickstart)
      .map(([name, value]) => `${name}=${value}`)
      .join(' ')}`,
    `  demo order:      ${checkin.orderId}, tickets ${checkin.identifiers.join(' ')}`,
    `                   for ${checkin.eventTitle} today (${checkin.date}, doors ${checkin.doorsTime}, show ${checkin.time}), check-in list "Main entrance" ${checkin.listId}`,
    '  door check-in:   pair the device, then scan the first ticket (paste both lines into one shell):',
    `    TOKEN=$(curl -s ${json({ pairing_code: checkin.pairingCode })} ${base}/chk/v1/pair | ${field('token')}) && echo "$TOKEN"`,
    `    curl -s -H "Authorization: Device $TOKEN" ${json({ code: checkin.identifiers[0], list_ids: [checkin.listId] })} ${base}/chk/v1/redeem`,
    ...checkoutLines(data, base),
    `  waiting list:    inventory ${data.waitingList.inventoryId} is sold out (order ${data.waitingList.orderId}); join its list:`,
    `    curl -s -u ${data.sellerId}:${data.apiKey} ${json({ inventory_id: data.waitingList.inventoryId, quantity: 1, email: 'ana@example.com' })} ${base}/stf/v1/waiting-list`,
    `  reserved seats:  ${seating.eventTitle} on ${seating.date} (plan ${seating.planId}); hold two best-available seats of the Plateia:`,
    `    curl -s -u ${data.sellerId}:${data.apiKey} ${json({ items: [{ inventory_id: seating.inventoryIds.plateia, quantity: 2 }] })} ${base}/stf/v1/baskets`,
    `    the seat map, those two seats ringed (same credentials): ${base}/stf/v1/events/${seating.eventId}/seats.svg?date=${seating.date}&highlight=${seating.bestTwo.join(',')}`,
    ...awaitPaymentLines(data, base),
    '',
    '',
  ].join('\n')
}

/**
 * A ticket for tonight's show bought at once, paid by pix: as a guest (an email and a name, docs/selling.md:
 * the order's token in the answer opens it), and as the demo buyer signed in. Each line opens
 * its own basket and checks it out; the order's status and id (or the error) are printed.
 */
function checkoutLines(data: DemoData, base: string) {
  const { checkin, buyer } = data
  const stf = `curl -s -u ${data.sellerId}:${data.apiKey}`
  const basket = `BASKET=$(${stf} ${json({ items: [{ inventory_id: checkin.inventoryId, quantity: 1 }] })} ${base}/stf/v1/baskets | ${field('id')})`
  const shown = (extra: string) => `node -p 'const o = JSON.parse(require("fs").readFileSync(0)); [o.status ?? o.code, o.id ?? o.message${extra}].join(" ")'`
  return [
    `  checkout:        a ticket for tonight (inventory ${checkin.inventoryId}), paid by pix: as a guest, then as the demo buyer`,
    '                   signed in; each line opens a basket and checks it out (paste the lines into one shell):',
    `    ${basket} && ${stf} ${json({ payment_method: 'pix', buyer: { email: 'ana@example.com', name: 'Ana Souza' } })} ${base}/stf/v1/baskets/$BASKET/checkout | ${shown(', o.order_token')}`,
    `    CUSTOMER=$(${stf} ${json({ email: buyer.email, password: buyer.password })} ${base}/stf/v1/auth/login | ${field('access_token')}) && ${basket} && ${stf} -H "X-Customer-Token: $CUSTOMER" ${json({ payment_method: 'pix' })} ${base}/stf/v1/baskets/$BASKET/checkout | ${shown('')}`,
  ]
}

/**
 * The event sold by pix awaiting payment (docs/payments.md), and the lines that buy a ticket of it as
 * the demo buyer: sign in, open a basket, check it out awaiting pix (`pending` and its
 * `payment_due_at` shown on stderr), pay what it owes, read its status (`confirmed`). Each keeps
 * what the next needs in a shell variable; they run as pasted, one after the other in one shell.
 */
function awaitPaymentLines(data: DemoData, base: string) {
  const { awaitPayment: pix, buyer } = data
  const stf = `curl -s -u ${data.sellerId}:${data.apiKey}`
  // The checkout's status and deadline (or its error) on stderr, its id kept.
  const orderShown = `node -p 'const o = JSON.parse(require("fs").readFileSync(0)); console.error(o.status ?? o.code, o.payment_due_at ?? o.message); o.id'`
  return [
    `  awaiting pix:    "${pix.eventTitle}" on ${pix.date} (order ${pix.pendingOrderId} awaits its pix until ${pix.paymentDueAt},`,
    `                   order ${pix.paidOrderId} was paid after awaiting it); as the demo buyer, check out a ticket awaiting pix,`,
    '                   pay it, read its status (paste the lines into one shell):',
    `    CUSTOMER=$(${stf} ${json({ email: buyer.email, password: buyer.password })} ${base}/stf/v1/auth/login | ${field('access_token')})`,
    `    BASKET=$(${stf} ${json({ items: [{ inventory_id: pix.inventoryId, quantity: 1 }] })} ${base}/stf/v1/baskets | ${field('id')})`,
    `    ORDER=$(${stf} -H "X-Customer-Token: $CUSTOMER" ${json({ payment_method: 'pix', await_payment: true })} ${base}/stf/v1/baskets/$BASKET/checkout | ${orderShown})`,
    `    ${stf} ${json({ amount: pix.price, reference: 'pix-demo-1' })} ${base}/stf/v1/orders/$ORDER/payments`,
    `    ${stf} ${base}/stf/v1/orders/$ORDER | ${field('status')}`,
  ]
}

/** The demo's credentials, as the first start prints them and `npm run demo:credentials` again. */
function credentialLines(
  data: { sellerId: string; apiKey: string; admin: DemoData['admin']; buyer: DemoData['buyer'] | null; pairingCode: string },
  base: string,
) {
  return [
    `  seller id:       ${data.sellerId}`,
    `  API key:         ${data.apiKey}   (shown this once; npm run demo:credentials issues another)`,
    ...(data.admin
      ? [
          data.admin.password
            ? `  admin login:     ${data.admin.email} / ${data.admin.password}   (shown this once)`
            : `  admin login:     ${data.admin.email} with ADMIN_PASSWORD`,
          `                   POST ${base}/iam/v1/auth/login {"username", "password"}, then Bearer on /adm/v1`,
        ]
      : []),
    ...(data.buyer
      ? [
          `  buyer login:     ${data.buyer.email} / ${data.buyer.password}   (shown this once)`,
          `                   POST ${base}/stf/v1/auth/login {"email", "password"} with the seller's credentials, then X-Customer-Token`,
        ]
      : []),
    `  try:             curl -u ${data.sellerId}:${data.apiKey} ${base}/stf/v1/events`,
    `  scanner device:  pairing code ${data.pairingCode}   (shown this once; works once, within 24 h)`,
  ]
}

/** What `npm run demo:credentials` prints: new credentials; the earlier API keys keep working, the earlier passwords do not. */
function renewedBanner(data: DemoCredentials, base: string) {
  return [
    '',
    'New demo credentials (the earlier API keys keep working; the demo admin and the demo buyer have new passwords):',
    ...credentialLines(data, base),
    '',
    '',
  ].join('\n')
}
