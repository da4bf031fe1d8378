import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../build-app.js'
import type { AdmClient } from '../support/adm-client.js'
import { checkinAdmin, useSellersInUtc } from '../support/checkin.js'
import { expectError } from '../support/customer-auth.js'

/** docs/door.md: a device's pairing link and QR, and the scanner page served from this origin under a strict policy. */
const ctx = useTestApp({ env: { PUBLIC_BASE_URL: 'https://tickets.example.com/api' } })
const [a] = useSellersInUtc(ctx)
let adm: AdmClient

beforeAll(async () => {
  adm = await checkinAdmin(ctx.app)
})

describe('pairing link', () => {
  it('answers pairing_url on the created device, and its QR while the code can pair, then 410', async () => {
    const created = (await adm.post(`/sellers/${a.seller.id}/devices`, { name: 'Gate QR' })).json()
    expect(created.pairing_url).toBe(`https://tickets.example.com/api/scan/#pair=${created.pairing_code}`)
    const qr = await adm.get(`/devices/${created.id}/pairing.svg`)
    expect(qr.statusCode).toBe(200)
    expect(qr.headers['content-type']).toMatch(/^image\/svg\+xml/)
    expect(qr.body).toMatch(/^<svg/)
    // The code a person can type, in text under the QR, for a phone that cannot scan it.
    expect(qr.body).toContain(`>${created.pairing_code}</text></svg>`)
    expect(qr.body).toMatch(/<path stroke="#000000" d="M4 4\.5h7/)
    // The same code pairs, once; after that the QR is gone.
    const paired = await ctx.app.inject({ method: 'POST', url: '/chk/v1/pair', payload: { pairing_code: created.pairing_code } })
    expect(paired.statusCode).toBe(201)
    expectError(await adm.get(`/devices/${created.id}/pairing.svg`), 410, 'pairing_unavailable')
  })

  it('has no QR for a revoked device, and 404 for an unknown one', async () => {
    const created = (await adm.post(`/sellers/${a.seller.id}/devices`, { name: 'Gate revoked' })).json()
    await adm.post(`/devices/${created.id}/revoke`, {})
    expectError(await adm.get(`/devices/${created.id}/pairing.svg`), 410, 'pairing_unavailable')
    expectError(await adm.get('/devices/00000000-0000-4000-8000-000000000000/pairing.svg'), 404, 'not_found')
  })

  it('shows the QR only to staff who may pair devices', async () => {
    const created = (await adm.post(`/sellers/${a.seller.id}/devices`, { name: 'Gate anon' })).json()
    expectError(await ctx.app.inject({ method: 'GET', url: `/adm/v1/devices/${created.id}/pairing.svg` }), 401, 'unauthorized')
  })
})

describe('GET /scan/', () => {
  it('serves the page and every asset from this origin under a strict policy', async () => {
    const page = await ctx.app.inject({ method: 'GET', url: '/scan/' })
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toMatch(/^text\/html/)
    const csp = String(page.headers['content-security-policy'])
    expect(csp).toContain("default-src 'self'")
    expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval'")
    expect(csp).not.toContain('unsafe-inline')
    expect(page.body).not.toMatch(/<script>|https?:\/\//)
    const wasm = await ctx.app.inject({ method: 'GET', url: '/scan/vendor/zxing/zxing_reader.wasm' })
    expect(wasm.statusCode).toBe(200)
    expect(wasm.headers['content-type']).toBe('application/wasm')
    const worker = await ctx.app.inject({ method: 'GET', url: '/scan/sw.js' })
    expect(worker.body).not.toContain('__VERSION__')
    expect(worker.body).toContain('vendor/zxing/zxing_reader.wasm')
    const again = await ctx.app.inject({ method: 'GET', url: '/scan/js/app.js', headers: { 'if-none-match': String(page.headers.etag) } })
    expect(again.statusCode).toBe(200)
    const cached = await ctx.app.inject({ method: 'GET', url: '/scan/', headers: { 'if-none-match': String(page.headers.etag) } })
    expect(cached.statusCode).toBe(304)
  })

  it('sends /scan to /scan/ and knows no other file', async () => {
    const bare = await ctx.app.inject({ method: 'GET', url: '/scan' })
    expect(bare.statusCode).toBe(308)
    expect(bare.headers.location).toBe('scan/')
    expectError(await ctx.app.inject({ method: 'GET', url: '/scan/../package.json' }), 404, 'not_found')
    expectError(await ctx.app.inject({ method: 'GET', url: '/scan/vendor/zxing/../../../package.json' }), 404, 'not_found')
  })
})
