/**
 * The flash sale's hand-written baseline (issue 41): the sale a competent engineer would write in
 * an afternoon, bare Fastify and node-postgres, run as its own process (`node` without flags)
 * over the benchmark's PostgreSQL database. It speaks exactly the storefront calls the bench's
 * buyers make (bench/lib/flash.ts), with the same credentials, so the same load drives both:
 *
 * - `POST /stf/v1/baskets` `{items: [{inventory_id, quantity}]}`: holds the tickets for the
 *   seller's `basket_ttl_seconds`. Under each inventory's row lock (`select … for update`, in id
 *   order), the holds that expired are released (lazily, by the next hold), then
 *   `capacity − sold − held ≥ quantity` is checked, the hold is inserted and `held` grows.
 *   Answers 201 with the basket; 409 `insufficient_inventory` when a quantity is not left.
 * - `POST /stf/v1/baskets/{id}/checkout` `{payment_method}`: in one transaction the basket is
 *   locked, its live holds become sold, the order is inserted, the inventory's row moves the hold
 *   into the sale (`sold += q, held −= q`) and one ticket per unit is inserted: the hot row is
 *   locked for the last two statements and the commit. Answers 201 with the order and its
 *   tickets, each with an Ed25519-signed code (a compact JWS, node:crypto); an expired basket is
 *   released and answered 410 `basket_expired`.
 * - Every call: HTTP Basic (seller id and API key) checked against `api_keys.key_hash` with the
 *   product's keyed hash (HMAC-SHA-256 under the key HKDF derives from JWT_SECRET), the answer
 *   kept in memory for 30 s per Authorization header; and `X-Customer-Token`, the product's
 *   customer JWT (HS256 under its derived key; issuer, audience, expiry, seller and claims checked
 *   on every call), its session found live in `customer_refresh_tokens` once and then kept for 30 s.
 *
 * Its own tables (`baseline_*`, bench/server/sale-baseline-seed.ts), never the product's: the
 * inventories it sells are copies of the product's flash-sale inventory with a `held` column.
 * Statements are prepared (named) once per connection; the pool is `DB_POOL_MAX` (default 10,
 * the product's default).
 *
 * What it leaves out, and the product pays for: variants, seats, coupons, affiliates,
 * idempotency keys, the waiting list, dates by the seller's time zone (it compares the
 * database's `current_date`), installments and payment references, the audit log, webhook
 * events, the outbox and e-mails, stored and rotated signing keys (one key made at start-up),
 * admission control, metrics, logging, security headers, response schemas (plain
 * JSON.stringify), revocations announced to other processes (credentials and sessions are
 * trusted for their 30 s), and every other route.
 */
import { createHmac, createSecretKey, generateKeyPairSync, hkdfSync, randomBytes, randomUUID, sign, timingSafeEqual } from 'node:crypto'
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify'
import pg from 'pg'

const env = (name: string) => {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is required`)
  return value
}

const TRUST_MS = 30_000
const MAX_REMEMBERED = 10_000
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const PAYMENT_METHODS = new Set(['credit_card', 'pix', 'boleto'])

// The product's keys, derived as src/platform/secrets.ts derives them, so its credentials and tokens work here.
const derive = (label: string) => Buffer.from(hkdfSync('sha256', env('JWT_SECRET'), 'boxoffice', label, 32))
const tokenHmac = derive('token-hmac')
const customerJwtKey = createSecretKey(Buffer.from(derive('customer-jwt').toString('base64url'), 'utf8'))

const pool = new pg.Pool({ connectionString: env('DATABASE_URL'), max: Number(process.env.DB_POOL_MAX ?? 10) })

const { privateKey } = generateKeyPairSync('ed25519')
const jwsHeader = Buffer.from(JSON.stringify({ alg: 'EdDSA', kid: randomUUID() })).toString('base64url')
const ticketCode = (claims: object) => {
  const input = `${jwsHeader}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`
  return `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`
}

type Seller = { id: string; ttlSeconds: number }
type Caller = { seller: Seller; customerId: string }
class Refusal {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly message: string,
  ) {}
}

/** A Map that forgets everything once it is full: enough for a bounded memory of a few keys. */
const remember = <V>(map: Map<string, V>, key: string, value: V) => {
  if (map.size >= MAX_REMEMBERED) map.clear()
  map.set(key, value)
}

const sellers = new Map<string, Seller & { until: number }>()
async function sellerOf(authorization: string | undefined): Promise<Seller | null> {
  if (!authorization) return null
  const now = Date.now()
  const known = sellers.get(authorization)
  if (known && known.until > now) return known
  if (!authorization.startsWith('Basic ') || authorization.length > 512) return null
  const decoded = Buffer.from(authorization.slice(6), 'base64').toString('latin1')
  const colon = decoded.indexOf(':')
  if (colon < 0) return null
  const sellerId = decoded.slice(0, colon).toLowerCase()
  const keyHash = createHmac('sha256', tokenHmac)
    .update(decoded.slice(colon + 1))
    .digest('base64url')
  const { rows } = await pool.query<{ seller_id: string; basket_ttl_seconds: number }>({
    name: 'api-key',
    text: `select k.seller_id, s.basket_ttl_seconds from api_keys k join sellers s on s.id = k.seller_id
            where k.key_hash = $1 and k.revoked_at is null and s.status = 'active'`,
    values: [keyHash],
  })
  const row = rows[0]
  if (!row || row.seller_id !== sellerId) return null
  const seller = { id: row.seller_id, ttlSeconds: row.basket_ttl_seconds, until: now + TRUST_MS }
  remember(sellers, authorization, seller)
  return seller
}

type CustomerClaims = { iss?: string; aud?: string | string[]; exp?: number; sub?: string; sid?: string; sess?: string; email?: string }
const sessions = new Map<string, number>()
/** The customer of a valid token of this seller whose session is live, else null. */
async function customerOf(token: string | string[] | undefined, sellerId: string): Promise<string | null> {
  if (typeof token !== 'string' || token.length > 4096) return null
  const parts = token.split('.')
  if (parts.length !== 3) return null
  const [header, payload, signature] = parts as [string, string, string]
  const expected = createHmac('sha256', customerJwtKey).update(`${header}.${payload}`).digest()
  const given = Buffer.from(signature, 'base64url')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null
  let claims: CustomerClaims
  try {
    if ((JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg?: string }).alg !== 'HS256') return null
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as CustomerClaims
  } catch {
    return null
  }
  const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud]
  if (
    claims.iss !== 'boxoffice' ||
    !audience.includes('boxoffice:customer') ||
    typeof claims.exp !== 'number' ||
    claims.exp * 1000 <= Date.now() ||
    claims.sid !== sellerId ||
    typeof claims.sub !== 'string' ||
    !UUID.test(claims.sub) ||
    typeof claims.sess !== 'string' ||
    !UUID.test(claims.sess) ||
    typeof claims.email !== 'string'
  )
    return null
  const now = Date.now()
  const key = `${sellerId}:${claims.sub}:${claims.sess}`
  if ((sessions.get(key) ?? 0) > now) return claims.sub
  const { rows } = await pool.query({
    name: 'session',
    text: `select 1 from customer_refresh_tokens where family_id = $1 and customer_id = $2 and seller_id = $3
              and used_at is null and revoked_at is null and expires_at > now() limit 1`,
    values: [claims.sess, claims.sub, sellerId],
  })
  if (rows.length === 0) return null
  remember(sessions, key, now + TRUST_MS)
  return claims.sub
}

const refuse = (reply: FastifyReply, refusal: Refusal) => reply.code(refusal.status).send({ code: refusal.code, message: refusal.message })

/** Basic, then the customer token: the caller, or the 401 already answered. */
async function callerOf(request: FastifyRequest, reply: FastifyReply): Promise<Caller | null> {
  const seller = await sellerOf(request.headers.authorization)
  if (!seller) {
    refuse(reply.header('www-authenticate', 'Basic realm="stf"'), new Refusal(401, 'unauthorized', 'The seller id or API key is wrong'))
    return null
  }
  const customerId = await customerOf(request.headers['x-customer-token'], seller.id)
  if (!customerId) {
    refuse(reply, new Refusal(401, 'invalid_token', 'The customer token is invalid or has expired'))
    return null
  }
  return { seller, customerId }
}

/** Runs `work` in a transaction on a connection of the pool; a Refusal it throws rolls back and is answered. */
async function transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  try {
    await client.query('begin')
    const result = await work(client)
    await client.query('commit')
    return result
  } catch (error) {
    await client.query('rollback').catch(() => undefined)
    throw error
  } finally {
    client.release()
  }
}

type Item = { inventory_id: string; quantity: number }
type LockedInventory = { id: string; event_id: string; date: string; price: number; capacity: number; sold: number; held: number }

async function hold(caller: Caller, wanted: Item[]) {
  // One line per inventory, in id order: the locks are always taken in the same order.
  const quantities = new Map<string, number>()
  for (const item of wanted) quantities.set(item.inventory_id.toLowerCase(), (quantities.get(item.inventory_id.toLowerCase()) ?? 0) + item.quantity)
  const ids = [...quantities.keys()].sort()
  const basketId = randomUUID()
  const expiresAt = new Date(Date.now() + caller.seller.ttlSeconds * 1000)
  const inventories = await transaction(async (client) => {
    await client.query({
      name: 'basket',
      text: 'insert into baseline_baskets (id, seller_id, customer_id, expires_at) values ($1, $2, $3, $4)',
      values: [basketId, caller.seller.id, caller.customerId, expiresAt],
    })
    const locked = await client.query<LockedInventory>({
      name: 'lock',
      text: `select i.id, i.event_id, i.date::text as date, i.price, i.capacity, i.sold, i.held
               from baseline_inventories i join events e on e.id = i.event_id
              where i.id = any($1::uuid[]) and i.seller_id = $2 and e.status = 'published' and i.date >= current_date
              order by i.id for update of i`,
      values: [ids, caller.seller.id],
    })
    if (locked.rows.length !== ids.length) throw new Refusal(404, 'not_found', 'The inventory was not found')
    const expired = await client.query<{ inventory_id: string; quantity: number }>({
      name: 'release',
      text: `update baseline_holds set state = 'released'
              where inventory_id = any($1::uuid[]) and state = 'held' and expires_at <= now()
          returning inventory_id, quantity`,
      values: [ids],
    })
    const released = new Map<string, number>()
    for (const row of expired.rows) released.set(row.inventory_id, (released.get(row.inventory_id) ?? 0) + row.quantity)
    for (const inventory of locked.rows) {
      const left = inventory.capacity - inventory.sold - (inventory.held - (released.get(inventory.id) ?? 0))
      if (left < quantities.get(inventory.id)!) throw new Refusal(409, 'insufficient_inventory', 'Not enough tickets left')
    }
    await client.query({
      name: 'holds',
      text: `insert into baseline_holds (basket_id, inventory_id, quantity, expires_at)
             select $1, unnest($2::uuid[]), unnest($3::int[]), $4`,
      values: [basketId, ids, ids.map((id) => quantities.get(id)!), expiresAt],
    })
    await client.query({
      name: 'held',
      text: `update baseline_inventories i set held = i.held - c.released + c.taken
               from unnest($1::uuid[], $2::int[], $3::int[]) as c(id, released, taken) where i.id = c.id`,
      values: [ids, ids.map((id) => released.get(id) ?? 0), ids.map((id) => quantities.get(id)!)],
    })
    return locked.rows
  })
  const items = inventories.map((inventory) => {
    const quantity = quantities.get(inventory.id)!
    return {
      inventory_id: inventory.id,
      event_id: inventory.event_id,
      date: inventory.date,
      quantity,
      unit_price: inventory.price,
      total: quantity * inventory.price,
    }
  })
  const total = items.reduce((sum, item) => sum + item.total, 0)
  return {
    id: basketId,
    status: 'open',
    expires_at: expiresAt.toISOString(),
    customer_id: caller.customerId,
    items,
    totals: { subtotal: total, discount: 0, total },
  }
}

type SoldLine = { inventory_id: string; quantity: number; price: number; event_id: string; date: string }

async function checkout(caller: Caller, basketId: string, paymentMethod: string) {
  const orderId = randomUUID()
  const { lines, tickets, createdAt } = await transaction(async (client) => {
    const basket = await client.query<{ status: string }>({
      name: 'basket-lock',
      text: 'select status from baseline_baskets where id = $1 and seller_id = $2 and customer_id = $3 for update',
      values: [basketId, caller.seller.id, caller.customerId],
    })
    const status = basket.rows[0]?.status
    if (!status) throw new Refusal(404, 'not_found', 'The basket was not found')
    if (status !== 'open') throw new Refusal(409, 'basket_checked_out', 'The basket was already checked out')
    // Locks the live holds; a hold released meanwhile (expired) is not among them.
    const taken = await client.query<SoldLine>({
      name: 'take-holds',
      text: `with taken as (
               update baseline_holds set state = 'sold' where basket_id = $1 and state = 'held' and expires_at > now() returning inventory_id, quantity)
             select t.inventory_id, t.quantity, i.price, i.event_id, i.date::text as date
               from taken t join baseline_inventories i on i.id = t.inventory_id order by t.inventory_id`,
      values: [basketId],
    })
    if (taken.rows.length === 0) throw new Refusal(410, 'basket_expired', 'The basket expired')
    const tickets = taken.rows.flatMap((line) =>
      Array.from({ length: line.quantity }, () => ({ id: randomUUID(), identifier: randomBytes(16).toString('base64url'), line })),
    )
    const total = taken.rows.reduce((sum, line) => sum + line.quantity * line.price, 0)
    const order = await client.query<{ created_at: Date }>({
      name: 'order',
      text: `insert into baseline_orders (id, seller_id, customer_id, basket_id, total, payment_method)
             values ($1, $2, $3, $4, $5, $6) returning created_at`,
      values: [orderId, caller.seller.id, caller.customerId, basketId, total, paymentMethod],
    })
    await client.query({
      name: 'basket-sold',
      text: `update baseline_baskets set status = 'checked_out', order_id = $2 where id = $1`,
      values: [basketId, orderId],
    })
    // The hot rows as late as they can be: locked from here to the commit, in id order, each
    // before the tickets' foreign keys share-lock it (a weaker lock taken first and then
    // strengthened deadlocks against a hold waiting for the row).
    for (const line of taken.rows)
      await client.query({
        name: 'sell',
        text: 'update baseline_inventories set sold = sold + $2, held = held - $2 where id = $1',
        values: [line.inventory_id, line.quantity],
      })
    await client.query({
      name: 'tickets',
      text: `insert into baseline_tickets (id, order_id, inventory_id, identifier)
             select unnest($1::uuid[]), $2, unnest($3::uuid[]), unnest($4::text[])`,
      values: [tickets.map((t) => t.id), orderId, tickets.map((t) => t.line.inventory_id), tickets.map((t) => t.identifier)],
    })
    return { lines: taken.rows, tickets, createdAt: order.rows[0]!.created_at }
  }).catch(async (error: unknown) => {
    // An expired basket: its holds are released (under the inventories' locks) before the 410.
    if (error instanceof Refusal && error.code === 'basket_expired') await releaseBasket(basketId)
    throw error
  })
  const items = lines.map((line) => ({
    inventory_id: line.inventory_id,
    event_id: line.event_id,
    date: line.date,
    quantity: line.quantity,
    unit_price: line.price,
    total: line.quantity * line.price,
  }))
  const total = items.reduce((sum, item) => sum + item.total, 0)
  return {
    id: orderId,
    status: 'confirmed',
    customer_id: caller.customerId,
    items,
    totals: { subtotal: total, discount: 0, total },
    payment: { method: paymentMethod, installments: 1, installment_amount: total },
    tickets: tickets.map((ticket) => ({
      identifier: ticket.identifier,
      inventory_id: ticket.line.inventory_id,
      status: 'valid',
      code: ticketCode({
        tid: ticket.identifier,
        sid: caller.seller.id,
        eid: ticket.line.event_id,
        inv: ticket.line.inventory_id,
        d: ticket.line.date,
      }),
    })),
    created_at: createdAt.toISOString(),
  }
}

/** The expired holds of a basket given back to their inventories. */
async function releaseBasket(basketId: string) {
  await transaction(async (client) => {
    await client.query({
      name: 'release-basket',
      text: `with gone as (
               update baseline_holds set state = 'released' where basket_id = $1 and state = 'held' returning inventory_id, quantity)
             update baseline_inventories i set held = i.held - g.quantity
               from (select inventory_id, sum(quantity)::int as quantity from gone group by inventory_id) g where i.id = g.inventory_id`,
      values: [basketId],
    })
    await client.query({ name: 'basket-expired', text: `update baseline_baskets set status = 'expired' where id = $1`, values: [basketId] })
  })
}

const app = Fastify({ logger: false })

app.setErrorHandler((error, _request, reply) => {
  if (error instanceof Refusal) return refuse(reply, error)
  const status = (error as { statusCode?: number }).statusCode ?? 500
  if (status >= 500) console.error(error)
  return reply.code(status).send({ code: status === 400 ? 'validation_error' : 'internal', message: (error as Error).message })
})

app.post<{ Body: { items: Item[] } }>(
  '/stf/v1/baskets',
  {
    schema: {
      body: {
        type: 'object',
        required: ['items'],
        additionalProperties: false,
        properties: {
          items: {
            type: 'array',
            minItems: 1,
            maxItems: 20,
            items: {
              type: 'object',
              required: ['inventory_id', 'quantity'],
              additionalProperties: false,
              properties: { inventory_id: { type: 'string', format: 'uuid' }, quantity: { type: 'integer', minimum: 1, maximum: 20 } },
            },
          },
        },
      },
    },
  },
  async (request, reply) => {
    const caller = await callerOf(request, reply)
    if (!caller) return reply
    return reply.code(201).send(await hold(caller, request.body.items))
  },
)

app.post<{ Params: { id: string }; Body: { payment_method: string } }>(
  '/stf/v1/baskets/:id/checkout',
  {
    schema: {
      params: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } } },
      body: {
        type: 'object',
        required: ['payment_method'],
        additionalProperties: false,
        properties: { payment_method: { type: 'string', minLength: 1, maxLength: 32 } },
      },
    },
  },
  async (request, reply) => {
    const caller = await callerOf(request, reply)
    if (!caller) return reply
    if (!PAYMENT_METHODS.has(request.body.payment_method)) return refuse(reply, new Refusal(422, 'unsupported_payment_method', 'Not a payment method'))
    return reply.code(201).send(await checkout(caller, request.params.id.toLowerCase(), request.body.payment_method))
  },
)

app.get('/health', async () => {
  await pool.query('select 1')
  return { ok: true }
})

/** Where the bench's load parks a connection that has no buyer left (bench/lib/flash.ts), as on the bench server. */
app.get('/bench/idle', async () => {
  await new Promise((resolve) => setTimeout(resolve, 100))
  return { ok: true }
})

const close = async () => {
  await app.close()
  await pool.end()
  process.exit(0)
}
process.once('SIGTERM', close)
process.once('SIGINT', close)

await app.listen({ port: Number(env('PORT')), host: process.env.HOST ?? '127.0.0.1' })
