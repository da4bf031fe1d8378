import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auditLog } from '../../src/domain/audit/audit-log.table.js'
import { apiKeys } from '../../src/domain/sellers/api-keys.table.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { insertSignedInCustomer, placeTestOrder } from '../factories/orders.js'
import { basicAuth, createTestSeller } from '../factories/sellers.js'
import { admClient, type AdmClient } from '../support/adm-client.js'
import { usesPostgres } from '../support/database.js'
import { buildSecondApp } from '../support/second-app.js'
import { createStaff } from '../support/staff.js'

const ctx = useTestApp()
let adm: AdmClient
let staffId: string

beforeAll(async () => {
  const staff = await createStaff(ctx.app, { permissions: ['adm.sellers.read', 'adm.sellers.write'] })
  staffId = staff.user.id
  adm = admClient(ctx.app, staff.auth)
})

const whoami = (headers: Record<string, string>, app: FastifyInstance = ctx.app) => app.inject({ method: 'GET', url: '/stf/v1/seller', headers })

const newSeller = async (body: Record<string, unknown> = {}) => {
  const res = await adm.post('/sellers', { name: 'Acme Tickets', storefront_url: 'https://acme.example.com', ...body })
  expect(res.statusCode, res.body).toBe(201)
  return res.json() as { id: string; api_key: string; settings: Record<string, number>; status: string }
}

const expectValidation = (res: { statusCode: number; json(): { code: string; details?: { path: string }[] } }, ...paths: string[]) => {
  expect(res.statusCode).toBe(400)
  expect(res.json().code).toBe('validation_error')
  for (const path of paths) expect(res.json().details?.map((d) => d.path)).toContain(path)
}

describe('POST /adm/v1/sellers', () => {
  it('creates a seller with default settings and answers its first API key, which works on the storefront', async () => {
    const res = await adm.post('/sellers', { name: 'Acme Tickets', storefront_url: 'https://acme.example.com/shop/' })
    expect(res.statusCode).toBe(201)
    const body = res.json()
    expect(body).toEqual({
      id: expect.any(String),
      name: 'Acme Tickets',
      storefront_url: 'https://acme.example.com/shop',
      contact_email: null,
      status: 'active',
      settings: {
        basket_ttl_seconds: 900,
        max_installments: 12,
        interest_free_installments: 1,
        monthly_rate: 0.0299,
        min_installment_amount: 500,
        login_requires_verified_email: true,
        timezone: 'America/Sao_Paulo',
        waiting_list_offer_minutes: 1440,
        waiting_list_max_quantity: 4,
        locale: 'pt-BR',
        seating_no_orphans: false,
        payment_minutes: { pix: 30, boleto: 4320, credit_card: 30 },
        withdrawal_days: 7,
        withdrawal_cutoff_hours: 48,
        guest_checkout: true,
        holder_changes_max: 2,
      },
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      api_key: expect.stringMatching(/^sk_[A-Za-z0-9_-]{43,}$/),
    })
    const profile = await whoami(basicAuth(body.id, body.api_key))
    expect(profile.statusCode).toBe(200)
    expect(profile.json()).toMatchObject({ id: body.id, storefront_url: 'https://acme.example.com/shop' })
  })

  it('takes settings, and records the creation in the audit log under the member of staff', async () => {
    const seller = await newSeller({
      settings: {
        basket_ttl_seconds: 600,
        max_installments: 6,
        interest_free_installments: 3,
        monthly_rate: 0.02,
        timezone: 'Asia/Tokyo',
        waiting_list_max_quantity: 20,
        locale: 'en',
      },
    })
    expect(seller.settings).toEqual({
      basket_ttl_seconds: 600,
      max_installments: 6,
      interest_free_installments: 3,
      monthly_rate: 0.02,
      min_installment_amount: 500,
      login_requires_verified_email: true,
      timezone: 'Asia/Tokyo',
      waiting_list_offer_minutes: 1440,
      waiting_list_max_quantity: 20,
      locale: 'en',
      seating_no_orphans: false,
      payment_minutes: { pix: 30, boleto: 4320, credit_card: 30 },
      withdrawal_days: 7,
      withdrawal_cutoff_hours: 48,
      guest_checkout: true,
      holder_changes_max: 2,
    })
    const rows = await ctx.app.db.select().from(auditLog).where(eq(auditLog.sellerId, seller.id))
    expect(rows.map((r) => r.action).sort()).toEqual(['adm.api_key.created', 'adm.seller.created'])
    expect(rows.every((r) => r.actorType === 'staff' && r.actorId === staffId && r.traceId)).toBe(true)
  })

  it('refuses missing or bad fields, unknown fields and settings out of bounds with 400 validation_error', async () => {
    expectValidation(await adm.post('/sellers', { storefront_url: 'https://a.example.com' }), 'name')
    expectValidation(await adm.post('/sellers', { name: '  ', storefront_url: 'https://a.example.com' }), 'name')
    for (const url of ['ftp://a.example.com', 'not a url', 'https://a.example.com/?x=1', 'javascript:alert(1)']) {
      expectValidation(await adm.post('/sellers', { name: 'A', storefront_url: url }), 'storefront_url')
    }
    expectValidation(await adm.post('/sellers', { name: 'A', storefront_url: 'https://a.example.com', status: 'active' }))
    const bad: [string, number | string][] = [
      ['timezone', 'Mars/Olympus_Mons'],
      ['timezone', 'America/Sao Paulo'],
      ['timezone', "'; drop table sellers; --"],
      ['basket_ttl_seconds', 59],
      ['basket_ttl_seconds', 86_401],
      ['max_installments', 0],
      ['max_installments', 25],
      ['interest_free_installments', 0],
      ['monthly_rate', -0.01],
      ['monthly_rate', 1.01],
      ['min_installment_amount', 0],
      ['max_installments', 2.5],
      ['waiting_list_max_quantity', 0],
      ['waiting_list_max_quantity', 21],
      ['waiting_list_max_quantity', 1.5],
      ['locale', 'pt-PT'],
      ['locale', 'EN'],
      ['holder_changes_max', -1],
      ['holder_changes_max', 21],
      ['holder_changes_max', 1.5],
      ['holder_changes_max', '2'],
    ]
    for (const [name, value] of bad) {
      expectValidation(await adm.post('/sellers', { name: 'A', storefront_url: 'https://a.example.com', settings: { [name]: value } }), `settings.${name}`)
    }
    expectValidation(await adm.post('/sellers', { name: 'A', storefront_url: 'https://a.example.com', settings: { colour: 'red' } }))
  })

  it('refuses more interest-free installments than installments, counting the defaults', async () => {
    expectValidation(
      await adm.post('/sellers', { name: 'A', storefront_url: 'https://a.example.com', settings: { interest_free_installments: 13 } }),
      'settings.interest_free_installments',
    )
    expectValidation(
      await adm.post('/sellers', {
        name: 'A',
        storefront_url: 'https://a.example.com',
        settings: { max_installments: 3, interest_free_installments: 4 },
      }),
      'settings.interest_free_installments',
    )
  })
})

describe('GET /adm/v1/sellers', () => {
  it('pages through sellers, newest first, and filters by status and name', async () => {
    const tag = randomUUID().slice(0, 8)
    const made = []
    for (let i = 0; i < 3; i++) made.push(await newSeller({ name: `Paging ${tag} ${i}` }))
    await adm.put(`/sellers/${made[0]!.id}`, { status: 'disabled' })

    const first = await adm.get(`/sellers?q=${tag}&limit=2`)
    expect(first.statusCode).toBe(200)
    expect(first.json().meta).toEqual({ count: 2, limit: 2, page: 1, total: 3 })
    expect(first.json().data.map((s: { name: string }) => s.name)).toEqual([`Paging ${tag} 2`, `Paging ${tag} 1`])
    const second = await adm.get(`/sellers?q=${tag}&limit=2&page=2`)
    expect(second.json().meta).toEqual({ count: 1, limit: 2, page: 2, total: 3 })
    expect(JSON.stringify(second.json())).not.toContain('api_key')

    const disabled = await adm.get(`/sellers?q=${tag}&status=disabled`)
    expect(disabled.json().data.map((s: { id: string }) => s.id)).toEqual([made[0]!.id])
    expect((await adm.get('/sellers?q=%25')).json().meta.total).toBe(0)
  })

  it('refuses bad paging and filters with 400', async () => {
    expectValidation(await adm.get('/sellers?limit=101'))
    expectValidation(await adm.get('/sellers?page=0'))
    expectValidation(await adm.get('/sellers?status=deleted'))
  })
})

describe('GET and PUT /adm/v1/sellers/{id}', () => {
  it('answers one seller; 404 for an unknown id and 400 for a malformed one', async () => {
    const seller = await newSeller()
    const res = await adm.get(`/sellers/${seller.id}`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ id: seller.id, name: 'Acme Tickets', status: 'active' })
    expect(res.json()).not.toHaveProperty('api_key')
    expect((await adm.get(`/sellers/${randomUUID()}`)).json().code).toBe('not_found')
    expect((await adm.get(`/sellers/${randomUUID()}`)).statusCode).toBe(404)
    expectValidation(await adm.get('/sellers/not-a-uuid'))
  })

  it('changes the fields given and, within settings, only the settings given', async () => {
    const seller = await newSeller({ settings: { max_installments: 10 } })
    const res = await adm.put(`/sellers/${seller.id}`, {
      name: 'Acme 2',
      storefront_url: 'https://acme2.example.com/',
      settings: { interest_free_installments: 4, locale: 'en', waiting_list_max_quantity: 6 },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({
      name: 'Acme 2',
      storefront_url: 'https://acme2.example.com',
      settings: { max_installments: 10, interest_free_installments: 4, basket_ttl_seconds: 900, locale: 'en', waiting_list_max_quantity: 6 },
    })
    expect((await adm.get(`/sellers/${seller.id}`)).json().settings).toMatchObject({ locale: 'en', waiting_list_max_quantity: 6 })
    expect(new Date(res.json().updated_at).getTime()).toBeGreaterThanOrEqual(new Date(res.json().created_at).getTime())
    const profile = await whoami(basicAuth(seller.id, seller.api_key))
    expect(profile.json()).toMatchObject({ name: 'Acme 2', settings: { interest_free_installments: 4, locale: 'en', waiting_list_max_quantity: 6 } })
  })

  it('refuses settings that no longer hold together once merged, an empty change and unknown fields', async () => {
    const seller = await newSeller({ settings: { max_installments: 6, interest_free_installments: 6 } })
    expectValidation(await adm.put(`/sellers/${seller.id}`, { settings: { max_installments: 5 } }), 'settings.interest_free_installments')
    expectValidation(await adm.put(`/sellers/${seller.id}`, {}))
    expectValidation(await adm.put(`/sellers/${seller.id}`, { api_key: 'x' }))
    expectValidation(await adm.put(`/sellers/${seller.id}`, { status: 'deleted' }))
    expect((await adm.put(`/sellers/${randomUUID()}`, { name: 'X' })).statusCode).toBe(404)
  })

  it('disables a seller, whose keys the storefront refuses on the very next request, and enables it again', async () => {
    const seller = await newSeller()
    const auth = basicAuth(seller.id, seller.api_key)
    expect((await whoami(auth)).statusCode).toBe(200)
    const disabled = await adm.put(`/sellers/${seller.id}`, { status: 'disabled' })
    expect(disabled.json().status).toBe('disabled')
    expect((await whoami(auth)).statusCode).toBe(401)
    await adm.put(`/sellers/${seller.id}`, { status: 'active' })
    expect((await whoami(auth)).statusCode).toBe(200)
    const actions = await ctx.app.db
      .select({ data: auditLog.data })
      .from(auditLog)
      .where(and(eq(auditLog.targetId, seller.id), eq(auditLog.action, 'adm.seller.updated')))
    expect(actions.map((a) => a.data)).toEqual(
      expect.arrayContaining([expect.objectContaining({ status: 'disabled' }), expect.objectContaining({ status: 'active' })]),
    )
  })
})

describe('payment and withdrawal settings (docs/payments.md)', () => {
  const DEFAULT_MINUTES = { pix: 30, boleto: 4320, credit_card: 30 }
  const settingsOfSeller = async (id: string) => (await adm.get(`/sellers/${id}`)).json().settings

  it('starts from the defaults, and a creation may give some methods only', async () => {
    const plain = await newSeller()
    expect(await settingsOfSeller(plain.id)).toMatchObject({ payment_minutes: DEFAULT_MINUTES, withdrawal_days: 7, withdrawal_cutoff_hours: 48 })
    const boleto = await newSeller({ settings: { payment_minutes: { boleto: 2880 }, withdrawal_days: 0, withdrawal_cutoff_hours: 720 } })
    expect(boleto.settings).toMatchObject({ payment_minutes: { ...DEFAULT_MINUTES, boleto: 2880 }, withdrawal_days: 0, withdrawal_cutoff_hours: 720 })
    expect(await settingsOfSeller(boleto.id)).toMatchObject({ payment_minutes: { ...DEFAULT_MINUTES, boleto: 2880 }, withdrawal_days: 0 })
  })

  it('merges payment_minutes per method: the methods not given keep their minutes', async () => {
    const seller = await newSeller({ settings: { payment_minutes: { boleto: 1440, credit_card: 60 } } })
    const pix = await adm.put(`/sellers/${seller.id}`, { settings: { payment_minutes: { pix: 10 } } })
    expect(pix.statusCode, pix.body).toBe(200)
    expect(pix.json().settings.payment_minutes).toEqual({ pix: 10, boleto: 1440, credit_card: 60 })
    const card = await adm.put(`/sellers/${seller.id}`, {
      settings: { payment_minutes: { credit_card: 45 }, withdrawal_days: 14, withdrawal_cutoff_hours: 24 },
    })
    expect(card.json().settings).toMatchObject({
      payment_minutes: { pix: 10, boleto: 1440, credit_card: 45 },
      withdrawal_days: 14,
      withdrawal_cutoff_hours: 24,
    })
    // Other settings leave payment_minutes as it is.
    await adm.put(`/sellers/${seller.id}`, { settings: { max_installments: 6 } })
    expect(await settingsOfSeller(seller.id)).toMatchObject({
      payment_minutes: { pix: 10, boleto: 1440, credit_card: 45 },
      withdrawal_days: 14,
      withdrawal_cutoff_hours: 24,
      max_installments: 6,
    })
    const audited = await ctx.app.db
      .select({ data: auditLog.data })
      .from(auditLog)
      .where(and(eq(auditLog.targetId, seller.id), eq(auditLog.action, 'adm.seller.updated')))
    expect(audited.map((a) => (a.data as { fields: string[] }).fields)).toEqual([
      ['settings.payment_minutes'],
      ['settings.payment_minutes', 'settings.withdrawal_days', 'settings.withdrawal_cutoff_hours'],
      ['settings.max_installments'],
    ])
  })

  it('changes nothing when the minutes given are those already set', async () => {
    const seller = await newSeller({ settings: { payment_minutes: { pix: 15 } } })
    const before = (await adm.get(`/sellers/${seller.id}`)).json()
    const same = await adm.put(`/sellers/${seller.id}`, { settings: { payment_minutes: { pix: 15, boleto: 4320 }, withdrawal_days: 7 } })
    expect(same.statusCode).toBe(200)
    expect(same.json()).toEqual(before)
    const audited = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, seller.id), eq(auditLog.action, 'adm.seller.updated')))
    expect(audited).toEqual([])
  })

  it('takes the bounds themselves: 5..43200 minutes per method, 0..30 days, 0..720 hours', async () => {
    const seller = await newSeller({
      settings: { payment_minutes: { pix: 5, boleto: 43_200, credit_card: 5 }, withdrawal_days: 30, withdrawal_cutoff_hours: 0 },
    })
    expect(seller.settings).toMatchObject({ payment_minutes: { pix: 5, boleto: 43_200, credit_card: 5 }, withdrawal_days: 30, withdrawal_cutoff_hours: 0 })
    const res = await adm.put(`/sellers/${seller.id}`, { settings: { payment_minutes: { pix: 43_200 }, withdrawal_days: 0, withdrawal_cutoff_hours: 720 } })
    expect(res.json().settings).toMatchObject({
      payment_minutes: { pix: 43_200, boleto: 43_200, credit_card: 5 },
      withdrawal_days: 0,
      withdrawal_cutoff_hours: 720,
    })
  })

  it('refuses minutes, days and hours out of bounds or not whole, on creation and on update, naming the setting', async () => {
    const seller = await newSeller({ settings: { payment_minutes: { pix: 20 } } })
    const before = (await adm.get(`/sellers/${seller.id}`)).json()
    const bad: [Record<string, unknown>, string][] = [
      [{ payment_minutes: { pix: 4 } }, 'settings.payment_minutes.pix'],
      [{ payment_minutes: { pix: 43_201 } }, 'settings.payment_minutes.pix'],
      [{ payment_minutes: { boleto: 2.5 } }, 'settings.payment_minutes.boleto'],
      [{ payment_minutes: { credit_card: 0 } }, 'settings.payment_minutes.credit_card'],
      [{ payment_minutes: { credit_card: -30 } }, 'settings.payment_minutes.credit_card'],
      [{ payment_minutes: { pix: '30' } }, 'settings.payment_minutes.pix'],
      [{ payment_minutes: { pix: null } }, 'settings.payment_minutes.pix'],
      [{ payment_minutes: 30 }, 'settings.payment_minutes'],
      [{ payment_minutes: null }, 'settings.payment_minutes'],
      [{ withdrawal_days: -1 }, 'settings.withdrawal_days'],
      [{ withdrawal_days: 31 }, 'settings.withdrawal_days'],
      [{ withdrawal_days: 1.5 }, 'settings.withdrawal_days'],
      [{ withdrawal_cutoff_hours: -1 }, 'settings.withdrawal_cutoff_hours'],
      [{ withdrawal_cutoff_hours: 721 }, 'settings.withdrawal_cutoff_hours'],
      [{ withdrawal_cutoff_hours: '48' }, 'settings.withdrawal_cutoff_hours'],
    ]
    for (const [settings, path] of bad) {
      expectValidation(await adm.post('/sellers', { name: 'A', storefront_url: 'https://a.example.com', settings }), path)
      expectValidation(await adm.put(`/sellers/${seller.id}`, { settings }), path)
    }
    expect((await adm.get(`/sellers/${seller.id}`)).json()).toEqual(before)
  })

  it('refuses a payment method the product does not know inside payment_minutes, and changes nothing', async () => {
    const seller = await newSeller()
    for (const minutes of [{ paypal: 10 }, { pix: 10, debit_card: 10 }, { PIX: 10 }]) {
      expectValidation(
        await adm.put(`/sellers/${seller.id}`, { settings: { payment_minutes: minutes } }),
        `settings.payment_minutes.${Object.keys(minutes).at(-1)}`,
      )
      expectValidation(await adm.post('/sellers', { name: 'A', storefront_url: 'https://a.example.com', settings: { payment_minutes: minutes } }))
    }
    expect((await settingsOfSeller(seller.id)).payment_minutes).toEqual(DEFAULT_MINUTES)
  })

  it("reaches the storefront's seller from the next request on: its profile, and the payment_due_at of a pending checkout", async () => {
    const shop = await createTestSeller(ctx.app)
    const buyer = await insertSignedInCustomer(ctx.app, shop)
    const inventory = await createTestInventory(ctx.app, await createTestEvent(ctx.app, shop.seller.id))
    // Cached by the storefront with the defaults.
    expect((await whoami(shop.auth)).json().settings).toMatchObject({ payment_minutes: DEFAULT_MINUTES, withdrawal_days: 7, withdrawal_cutoff_hours: 48 })
    await adm.put(`/sellers/${shop.seller.id}`, { settings: { payment_minutes: { pix: 12 }, withdrawal_days: 3, withdrawal_cutoff_hours: 72 } })
    expect((await whoami(shop.auth)).json().settings).toMatchObject({
      payment_minutes: { ...DEFAULT_MINUTES, pix: 12 },
      withdrawal_days: 3,
      withdrawal_cutoff_hours: 72,
    })
    const { status, created_at, payment_due_at } = await placeTestOrder(ctx.app, buyer.headers, [{ inventory_id: inventory.id, quantity: 1 }])
    expect(status).toBe('pending')
    expect(new Date(payment_due_at!).getTime() - new Date(created_at).getTime()).toBe(12 * 60_000)
  })
})

describe('holder_changes_max (docs/transfers.md)', () => {
  it('is 2 unless told, takes 0..20 on creation and update, and reaches the storefront’s seller profile', async () => {
    const shop = await createTestSeller(ctx.app)
    expect((await adm.get(`/sellers/${shop.seller.id}`)).json().settings.holder_changes_max).toBe(2)
    expect((await whoami(shop.auth)).json().settings.holder_changes_max).toBe(2)
    const none = await adm.put(`/sellers/${shop.seller.id}`, { settings: { holder_changes_max: 0 } })
    expect(none.statusCode, none.body).toBe(200)
    expect(none.json().settings.holder_changes_max).toBe(0)
    expect((await whoami(shop.auth)).json().settings.holder_changes_max).toBe(0)
    expect((await adm.put(`/sellers/${shop.seller.id}`, { settings: { holder_changes_max: 20 } })).json().settings.holder_changes_max).toBe(20)
    expect((await newSeller({ settings: { holder_changes_max: 5 } })).settings.holder_changes_max).toBe(5)
    expectValidation(await adm.put(`/sellers/${shop.seller.id}`, { settings: { holder_changes_max: 21 } }), 'settings.holder_changes_max')
    expect((await adm.get(`/sellers/${shop.seller.id}`)).json().settings.holder_changes_max).toBe(20)
  })
})

describe('API keys', () => {
  it('issues more keys, with or without a name, each working at once and shown only on creation', async () => {
    const seller = await newSeller()
    const named = await adm.post(`/sellers/${seller.id}/api-keys`, { name: 'mobile app' })
    expect(named.statusCode).toBe(201)
    expect(named.json()).toMatchObject({ name: 'mobile app', revoked_at: null, last_used_at: null, api_key: expect.stringMatching(/^sk_/) })
    const unnamed = await ctx.app.inject({ method: 'POST', url: `/adm/v1/sellers/${seller.id}/api-keys`, headers: (await staffAuth()).auth })
    expect(unnamed.statusCode).toBe(201)
    expect(unnamed.json().name).toBeNull()
    const list = await adm.get(`/sellers/${seller.id}/api-keys`)
    expect(list.statusCode).toBe(200)
    expect(list.json().meta).toMatchObject({ total: 3, count: 3 })
    expect(list.json().data[0]).toEqual({
      id: unnamed.json().id,
      prefix: unnamed.json().api_key.slice(0, 7),
      name: null,
      created_at: expect.any(String),
      last_used_at: null,
      revoked_at: null,
    })
    const [hash] = await ctx.app.db.select({ keyHash: apiKeys.keyHash }).from(apiKeys).where(eq(apiKeys.id, named.json().id))
    for (const secret of [seller.api_key, named.json().api_key, hash!.keyHash]) expect(list.body).not.toContain(secret)
    for (const key of [seller.api_key, named.json().api_key, unnamed.json().api_key]) {
      expect((await whoami(basicAuth(seller.id, key))).statusCode).toBe(200)
    }
  })

  it('refuses a bad key name and an unknown seller', async () => {
    const seller = await newSeller()
    expectValidation(await adm.post(`/sellers/${seller.id}/api-keys`, { name: '' }))
    expectValidation(await adm.post(`/sellers/${seller.id}/api-keys`, { name: 'x', scope: 'all' }))
    expect((await adm.post(`/sellers/${randomUUID()}/api-keys`, {})).statusCode).toBe(404)
    expect((await adm.get(`/sellers/${randomUUID()}/api-keys`)).statusCode).toBe(404)
  })

  it('revokes a key: refused by the storefront on the very next request, listed with revoked_at, other keys unaffected', async () => {
    const seller = await newSeller()
    const second = (await adm.post(`/sellers/${seller.id}/api-keys`, { name: 'second' })).json()
    const auth = basicAuth(seller.id, second.api_key)
    expect((await whoami(auth)).statusCode).toBe(200)
    const res = await adm.delete(`/sellers/${seller.id}/api-keys/${second.id}`)
    expect(res.statusCode).toBe(204)
    expect(res.body).toBe('')
    expect((await whoami(auth)).statusCode).toBe(401)
    expect((await whoami(basicAuth(seller.id, seller.api_key))).statusCode).toBe(200)
    const listed = (await adm.get(`/sellers/${seller.id}/api-keys`)).json().data.find((k: { id: string }) => k.id === second.id)
    expect(listed.revoked_at).toEqual(expect.any(String))
    // Revoking again changes nothing and answers the same.
    expect((await adm.delete(`/sellers/${seller.id}/api-keys/${second.id}`)).statusCode).toBe(204)
    const rows = await ctx.app.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, second.id), eq(auditLog.action, 'adm.api_key.revoked')))
    expect(rows[0]).toMatchObject({ actorType: 'staff', actorId: staffId, sellerId: seller.id })
  })

  it("answers 404 for another seller's key under this seller, which keeps working, and 400 for a malformed key id", async () => {
    const a = await newSeller()
    const b = await createTestSeller(ctx.app)
    expect((await adm.delete(`/sellers/${a.id}/api-keys/${b.apiKeyId}`)).statusCode).toBe(404)
    expect((await adm.delete(`/sellers/${a.id}/api-keys/${randomUUID()}`)).statusCode).toBe(404)
    expect((await whoami(b.auth)).statusCode).toBe(200)
    expectValidation(await adm.delete(`/sellers/${a.id}/api-keys/nope`))
    const keysOfA = (await adm.get(`/sellers/${a.id}/api-keys`)).json().data.map((k: { id: string }) => k.id)
    expect(keysOfA).not.toContain(b.apiKeyId)
  })
})

const staffAuth = () => createStaff(ctx.app, { permissions: ['adm.sellers.write'] })

describe.skipIf(!usesPostgres())('a second app instance on the same PostgreSQL', () => {
  let other: FastifyInstance
  let closeOther: () => Promise<void>

  beforeAll(async () => {
    ;({ app: other, close: closeOther } = await buildSecondApp())
  })
  afterAll(() => closeOther?.())

  it('refuses a key revoked through the back office of the first on its next request', async () => {
    const seller = await newSeller()
    const auth = basicAuth(seller.id, seller.api_key)
    // Cached by the second instance.
    expect((await whoami(auth, other)).statusCode).toBe(200)
    expect((await whoami(auth, other)).statusCode).toBe(200)
    const keyId = (await adm.get(`/sellers/${seller.id}/api-keys`)).json().data[0].id
    expect((await adm.delete(`/sellers/${seller.id}/api-keys/${keyId}`)).statusCode).toBe(204)
    // The notice travels at commit; allow its few milliseconds, no more.
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect((await whoami(auth, other)).statusCode).toBe(401)
  })

  it('refuses a seller disabled through the first, and sees its new settings', async () => {
    const seller = await newSeller()
    const auth = basicAuth(seller.id, seller.api_key)
    expect((await whoami(auth, other)).json().settings.max_installments).toBe(12)
    await adm.put(`/sellers/${seller.id}`, { settings: { max_installments: 4 } })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect((await whoami(auth, other)).json().settings.max_installments).toBe(4)
    await adm.put(`/sellers/${seller.id}`, { settings: { payment_minutes: { boleto: 600 } } })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect((await whoami(auth, other)).json().settings.payment_minutes).toEqual({ pix: 30, boleto: 600, credit_card: 30 })
    await adm.put(`/sellers/${seller.id}`, { status: 'disabled' })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect((await whoami(auth, other)).statusCode).toBe(401)
  })
})
