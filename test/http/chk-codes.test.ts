import { generateKeyPairSync } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { inflateSync } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { CompactSign, decodeProtectedHeader, type JSONWebKeySet } from 'jose'
import { PDFDict, PDFDocument, PDFName, type PDFNumber, type PDFRawStream } from 'pdf-lib'
import { PNG } from 'pngjs'
import QRCode from 'qrcode'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { basicAuth, useTwoSellers } from '../factories/sellers.js'
import type { AdmClient } from '../support/adm-client.js'
import { buyTickets, checkinAdmin, pairedDevice, scanner, type TestOrder } from '../support/checkin.js'
import { verifyTicketCode } from '../support/verify-ticket-code.js'
import { findActiveKeyRow } from '../../src/domain/checkin/ticket-keys.repo.js'
import { pdfText } from '../support/pdf-text.js'

/** docs/door.md: tickets' signed codes, verified offline with the seller's published keys, and their QR images. */
const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx)
let adm: AdmClient
/** Seller a's paired device: its headers, and its calls. */
let device: { authorization: string }
let gate: ReturnType<typeof scanner>
let keys: JSONWebKeySet
let eventId: string
let inventoryId: string
let listId: string
/** Two tickets of seller a, the first of the variant `Meia`, the second of none. */
let order: TestOrder
/** A ticket of seller b, on b's own event. */
let stranger: TestOrder

/** Today in the test sellers' time zone (the default), when their gates admit today's tickets. */
const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date())

const meia = [{ name: 'Meia', description: 'Half price', type: 'half', price: 2500 }]

beforeAll(async () => {
  adm = await checkinAdmin(ctx.app)
  const event = await createTestEvent(ctx.app, a.seller.id)
  eventId = event.id
  inventoryId = (await createTestInventory(ctx.app, event, { date: today, variants: meia })).id
  const list = await adm.post(`/events/${eventId}/checkin-lists`, { name: 'Main gate' })
  expect(list.statusCode).toBe(201)
  listId = list.json().id
  device = (await pairedDevice(ctx.app, adm, a.seller.id)).headers
  gate = scanner(ctx.app, device)
  const published = await gate.get('/keys')
  expect(published.statusCode).toBe(200)
  keys = published.json()
  order = await buyTickets(ctx.app, a, [
    { inventory_id: inventoryId, quantity: 1, variant: 'Meia' },
    { inventory_id: inventoryId, quantity: 1 },
  ])
  const bInventory = await createTestInventory(ctx.app, await createTestEvent(ctx.app, b.seller.id), { date: today })
  stranger = await buyTickets(ctx.app, b, [{ inventory_id: bInventory.id, quantity: 1 }])
})

const guide = () => readFileSync(new URL('../../docs/door.md', import.meta.url), 'utf8')

/** The code with one character of its payload changed. */
function tampered(code: string): string {
  const [header, payload, signature] = code.split('.') as [string, string, string]
  const at = Math.floor(payload.length / 2)
  return `${header}.${payload.slice(0, at)}${payload[at] === 'A' ? 'B' : 'A'}${payload.slice(at + 1)}.${signature}`
}

describe("the door guide's verifier", () => {
  it('is the very code docs/door.md shows, in at most 25 lines', () => {
    const verifier = readFileSync(new URL('../support/verify-ticket-code.ts', import.meta.url), 'utf8')
      .split('\n')
      .slice(1)
      .join('\n')
      .trim()
    expect(guide()).toContain(`\`\`\`ts\n${verifier}\n\`\`\``)
    expect(verifier.split('\n').length).toBeLessThanOrEqual(25)
  })

  it("verifies a ticket's code with the keys a device fetches, answering what the ticket is", async () => {
    expect(keys.keys).toEqual([{ kid: expect.any(String), kty: 'OKP', crv: 'Ed25519', x: expect.stringMatching(/^[\w-]{43}$/), active: true }])
    const [half, full] = order.tickets
    expect(decodeProtectedHeader(half!.code)).toEqual({ alg: 'EdDSA', kid: keys.keys[0]!.kid })
    // The compact layout leaves the seller out: the key that verifies it is the seller's.
    const claims = { eid: eventId, inv: inventoryId, d: today }
    expect(await verifyTicketCode(half!.code, keys)).toEqual({ tid: half!.identifier, ...claims, v: 'Meia' })
    expect(await verifyTicketCode(full!.code, keys)).toEqual({ tid: full!.identifier, ...claims, v: null })
  })
})

describe('a code that is not genuine', () => {
  /** Codes of no ticket of seller a: each fails the verifier and is refused `invalid` at a's gate. */
  const forgeries = async (): Promise<[string, string][]> => {
    const genuine = order.tickets[0]!
    const claims = { ...(await verifyTicketCode(genuine.code, keys)), sid: a.seller.id }
    const bKey = (await findActiveKeyRow(ctx.app.db, b.seller.id))!
    // A stranger's key under a's kid, signing a's very claims.
    const { privateKey } = generateKeyPairSync('ed25519')
    const underAsKid = await new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
      .setProtectedHeader({ alg: 'EdDSA', kid: keys.keys[0]!.kid })
      .sign(privateKey)
    return [
      ['one payload character changed', tampered(genuine.code)],
      ["a's ticket signed with seller b's key", (await ctx.app.ticketCodes.signer(ctx.app.db, b.seller.id, [bKey.id]))(claims, bKey.id)],
      ["seller b's own ticket", stranger.tickets[0]!.code],
      ["a's claims signed by another key under a's kid", underAsKid],
    ]
  }

  it('fails the verifier', async () => {
    for (const [what, code] of await forgeries()) await expect(verifyTicketCode(code, keys), what).rejects.toThrow()
  })

  it('is refused invalid by POST /chk/v1/redeem, while the genuine code passes', async () => {
    for (const [what, code] of await forgeries()) {
      const res = await gate.post('/redeem', { code, list_ids: [listId] })
      expect(res.statusCode, what).toBe(200)
      expect(res.json(), what).toMatchObject({ status: 'refused', reason: 'invalid', ticket: null })
    }
    const genuine = await gate.post('/redeem', { code: order.tickets[0]!.code, list_ids: [listId] })
    expect(genuine.json()).toMatchObject({ status: 'ok', reason: null, ticket: { identifier: order.tickets[0]!.identifier } })
  })
})

describe('GET /stf/v1/orders/{id}/tickets/{identifier}/qr.svg', () => {
  const qr = (orderId: string, identifier: string, headers: Record<string, string>) =>
    ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${orderId}/tickets/${identifier}/qr.svg`, headers })

  it("answers an SVG document of the ticket's code, with a 4-module quiet zone", async () => {
    const ticket = order.tickets[1]!
    const res = await qr(order.id, ticket.identifier, a.auth)
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml\b/)
    expect(res.body).toMatch(/^(<\?xml[^>]*>\s*)?<svg[\s>]/)
    expect(res.body.trim().endsWith('</svg>')).toBe(true)
    // The QR of exactly the ticket's code, as the QR library draws it.
    expect(res.body).toBe(await QRCode.toString(ticket.code, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 }))
  })

  it("answers 404 to another seller's credentials and to an identifier the order does not have", async () => {
    const ticket = order.tickets[0]!
    expect((await qr(order.id, ticket.identifier, b.auth)).json()).toMatchObject({ code: 'not_found' })
    expect((await qr(order.id, ticket.identifier, b.auth)).statusCode).toBe(404)
    expect((await qr(order.id, 'A'.repeat(26), a.auth)).statusCode).toBe(404)
    expect((await qr(order.id, stranger.tickets[0]!.identifier, a.auth)).statusCode).toBe(404)
  })
})

// jsqr is CommonJS with a `default` its types name but Node's ESM loader does not give.
const jsQR = createRequire(import.meta.url)('jsqr') as typeof import('jsqr').default

/** The text of the QR in RGBA pixels. */
const decodeQr = (rgba: Uint8Array, width: number, height: number) => jsQR(new Uint8ClampedArray(rgba), width, height)?.data

/** Every image of the PDF's pages, as RGBA pixels (pdf-lib writes a PNG as Flate-compressed samples, alpha apart). */
function pdfImages(pdf: PDFDocument) {
  return pdf.getPages().flatMap((page) => {
    const xObjects = page.node.Resources()?.lookup(PDFName.of('XObject'), PDFDict)
    return (xObjects?.values() ?? []).map((ref) => {
      const stream = pdf.context.lookup(ref) as PDFRawStream
      const width = (stream.dict.lookup(PDFName.of('Width')) as PDFNumber).asNumber()
      const height = (stream.dict.lookup(PDFName.of('Height')) as PDFNumber).asNumber()
      const channels = String(stream.dict.lookup(PDFName.of('ColorSpace'))) === '/DeviceGray' ? 1 : 3
      const samples = inflateSync(stream.contents)
      const rgba = new Uint8Array(width * height * 4)
      for (let i = 0; i < width * height; i++) {
        for (let c = 0; c < 3; c++) rgba[i * 4 + c] = samples[i * channels + (channels === 1 ? 0 : c)]!
        rgba[i * 4 + 3] = 255
      }
      return { width, height, rgba }
    })
  })
}

/** The text the PDF's pages draw (pdf-lib writes it as hex strings in Flate-compressed content streams). */

describe('GET /stf/v1/orders/{id}/tickets/{identifier}/qr.png', () => {
  const png = (orderId: string, identifier: string, headers: Record<string, string>, query = '') =>
    ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${orderId}/tickets/${identifier}/qr.png${query}`, headers })

  it("answers a PNG of the size asked whose QR reads as the ticket's code", async () => {
    const ticket = order.tickets[0]!
    for (const [query, size] of [
      ['', 512],
      ['?size=200', 200],
    ] as const) {
      const res = await png(order.id, ticket.identifier, a.auth, query)
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toBe('image/png')
      const image = PNG.sync.read(res.rawPayload)
      expect([image.width, image.height]).toEqual([size, size])
      expect(decodeQr(image.data, image.width, image.height)).toBe(ticket.code)
    }
  })

  it('refuses a size out of bounds, and answers 404 to another seller', async () => {
    const ticket = order.tickets[0]!
    expect((await png(order.id, ticket.identifier, a.auth, '?size=63')).statusCode).toBe(400)
    expect((await png(order.id, ticket.identifier, a.auth, '?size=2049')).statusCode).toBe(400)
    expect((await png(order.id, ticket.identifier, b.auth)).statusCode).toBe(404)
    expect((await png(order.id, stranger.tickets[0]!.identifier, a.auth)).statusCode).toBe(404)
  })
})

describe('GET /stf/v1/orders/{id}/tickets.pdf', () => {
  const pdfOf = (orderId: string, headers: Record<string, string>) => ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${orderId}/tickets.pdf`, headers })

  it('answers one page per valid ticket, each with a QR that reads as its code, and the event, date, inventory, variant and holder', async () => {
    const bought = await buyTickets(ctx.app, a, [
      { inventory_id: inventoryId, quantity: 2, variant: 'Meia' },
      { inventory_id: inventoryId, quantity: 1 },
    ])
    const adm2 = await checkinAdmin(ctx.app)
    const [, voided] = bought.tickets
    expect((await adm2.post(`/orders/${bought.id}/tickets/${voided!.identifier}/void`)).statusCode).toBe(200)
    const res = await pdfOf(bought.id, a.auth)
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('application/pdf')
    const pdf = await PDFDocument.load(res.rawPayload)
    const valid = bought.tickets.filter((t) => t.identifier !== voided!.identifier)
    expect(pdf.getPageCount()).toBe(valid.length)
    const images = pdfImages(pdf)
    expect(images).toHaveLength(valid.length)
    expect(images.map((image) => decodeQr(image.rgba, image.width, image.height))).toEqual(valid.map((t) => t.code))
    const text = pdfText(pdf)
    expect(text).not.toContain(voided!.identifier)
    for (const t of valid) expect(text).toContain(t.identifier)
    expect(text.match(/Meia/g)).toHaveLength(1)
    // The date as the buyers of a pt-BR seller (the default) read it: "sábado, 12 de dezembro de 2026".
    const long = { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' } as const
    expect(text).toContain(new Intl.DateTimeFormat('pt-BR', long).format(new Date(`${today}T00:00:00Z`)))
  })

  it("answers 404 to another seller's credentials and for an order without a valid ticket", async () => {
    expect((await pdfOf(order.id, b.auth)).statusCode).toBe(404)
    expect((await pdfOf(stranger.id, a.auth)).statusCode).toBe(404)
    const cancelled = await buyTickets(ctx.app, a, [{ inventory_id: inventoryId, quantity: 1 }])
    expect((await (await checkinAdmin(ctx.app)).post(`/orders/${cancelled.id}/cancel`)).statusCode).toBe(200)
    expect((await pdfOf(cancelled.id, a.auth)).json()).toMatchObject({ code: 'not_found' })
  })
})

describe('the OpenAPI document', () => {
  it('lists the ticket images under their media types', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const mediaTypes = (path: string) => Object.keys(doc.paths[path].get.responses['200'].content)
    expect(mediaTypes('/stf/v1/orders/{id}/tickets/{identifier}/qr.svg')).toEqual(['image/svg+xml'])
    expect(mediaTypes('/stf/v1/orders/{id}/tickets/{identifier}/qr.png')).toEqual(['image/png'])
    expect(mediaTypes('/stf/v1/orders/{id}/tickets.pdf')).toEqual(['application/pdf'])
  })
})

describe("a ticket's code", () => {
  it('is the same on every read of the order', async () => {
    const read = async () => (await ctx.app.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}`, headers: a.auth })).json() as TestOrder
    const [first, second] = [await read(), await read()]
    expect(first.tickets.map((t) => t.code)).toEqual(order.tickets.map((t) => t.code))
    expect(second.tickets.map((t) => t.code)).toEqual(order.tickets.map((t) => t.code))
  })

  it('stays the same when JWT_SECRET changes (another app on the database, the same TICKET_KEYS_SECRET): it still scans and verifies', async () => {
    const [, ticket] = (await buyTickets(ctx.app, a, [{ inventory_id: inventoryId, quantity: 2 }])).tickets
    const rotated: FastifyInstance = await buildTestApp({ env: { JWT_SECRET: 'another-secret-that-is-at-least-32-characters' } })
    try {
      // Device tokens are kept as HMACs under a key of JWT_SECRET: the paired device pairs again.
      expect((await rotated.inject({ method: 'GET', url: '/chk/v1/keys', headers: device })).statusCode).toBe(401)
      const admAfter = await checkinAdmin(rotated)
      const gateAfter = scanner(rotated, (await pairedDevice(rotated, admAfter, a.seller.id)).headers)
      const keysAfter = (await gateAfter.get('/keys')).json() as JSONWebKeySet
      expect(keysAfter).toEqual(keys)
      expect(await verifyTicketCode(ticket!.code, keysAfter)).toMatchObject({ tid: ticket!.identifier })

      // API keys are HMACs under JWT_SECRET too: the seller needs a new one, and its order answers carry the same codes.
      const apiKey = await admAfter.post(`/sellers/${a.seller.id}/api-keys`, { name: 'after rotation' })
      expect(apiKey.statusCode).toBe(201)
      const auth = basicAuth(a.seller.id, apiKey.json().api_key)
      const reread = await rotated.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}`, headers: auth })
      expect(reread.statusCode).toBe(200)
      expect((reread.json() as TestOrder).tickets.map((t) => t.code)).toEqual(order.tickets.map((t) => t.code))
      const image = await rotated.inject({ method: 'GET', url: `/stf/v1/orders/${order.id}/tickets/${order.tickets[0]!.identifier}/qr.svg`, headers: auth })
      expect(image.body).toBe(await QRCode.toString(order.tickets[0]!.code, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 }))

      expect((await gateAfter.post('/redeem', { code: ticket!.code, list_ids: [listId] })).json()).toMatchObject({ status: 'ok' })
    } finally {
      await rotated.close()
    }
  })
})
