import { createHmac, randomUUID } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, useTestApp } from '../build-app.js'
import { createTestCustomer, type TestCustomer } from '../factories/customers.js'
import { type TestSeller, useTwoSellers } from '../factories/sellers.js'
import { expectError, getMe, postAuth } from '../support/customer-auth.js'
import { customerClaims, handMadeJwt } from '../support/jwt.js'

const ctx = useTestApp()
const [a, b] = useTwoSellers(ctx)
let ana: TestCustomer

beforeAll(async () => {
  ana = await createTestCustomer(ctx.app, a)
})

const withToken = (seller: TestSeller, token: string) => ({ ...seller.auth, 'x-customer-token': token })
const customerKey = () => ctx.app.secrets.customerJwt

describe('X-Customer-Token', () => {
  it('accepts the token from login with the credentials of the seller that issued it', async () => {
    const res = await getMe(ctx.app, ana.headers)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ id: ana.customer.id, email: ana.customer.email })
  })

  it('accepts a well-formed token signed with the customer key (the forgeries below differ in one way each)', async () => {
    const token = handMadeJwt(customerClaims({ sub: ana.customer.id, sid: a.seller.id, sess: ana.sessionId }), { key: customerKey() })
    expect((await getMe(ctx.app, withToken(a, token))).statusCode).toBe(200)
  })

  it('answers 401 unauthorized when the header is missing or empty', async () => {
    expectError(await getMe(ctx.app, a.auth), 401, 'unauthorized')
    expectError(await getMe(ctx.app, withToken(a, '')), 401, 'unauthorized')
  })

  it("refuses a token of seller A presented with seller B's Basic credentials", async () => {
    expectError(await getMe(ctx.app, withToken(b, ana.accessToken)), 401, 'invalid_token')
  })

  it('still checks the Basic credentials first', async () => {
    const res = await getMe(ctx.app, { 'x-customer-token': ana.accessToken })
    expectError(res, 401, 'unauthorized')
    expect(res.headers['www-authenticate']).toBe('Basic realm="stf"')
  })

  it('refuses expired, unsigned, forged and foreign tokens with 401 invalid_token', async () => {
    const valid = { sub: ana.customer.id, sid: a.seller.id, sess: ana.sessionId }
    const ben = await createTestCustomer(ctx.app, a)
    const now = Math.floor(Date.now() / 1000)
    const [header, payload, signature] = ana.accessToken.split('.') as [string, string, string]
    const tampered = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
    tampered.sub = randomUUID()
    const cases: Record<string, string> = {
      expired: handMadeJwt(customerClaims({ ...valid, iat: now - 1000, exp: now - 100 }), { key: customerKey() }),
      'alg none': handMadeJwt(customerClaims(valid), { alg: 'none' }),
      'alg none with the real signature': `${handMadeJwt(customerClaims(valid), { alg: 'none' })}${signature}`,
      'HS512 under the right key': handMadeJwt(customerClaims(valid), { key: customerKey(), alg: 'HS512' }),
      'another key': handMadeJwt(customerClaims(valid), { key: 'x'.repeat(43) }),
      'the staff key': handMadeJwt(customerClaims(valid), { key: ctx.app.secrets.staffJwt }),
      'staff audience under the staff key': handMadeJwt(customerClaims({ ...valid, aud: 'boxoffice:staff' }), { key: ctx.app.secrets.staffJwt }),
      'staff audience under the customer key': handMadeJwt(customerClaims({ ...valid, aud: 'boxoffice:staff' }), { key: customerKey() }),
      'another issuer': handMadeJwt(customerClaims({ ...valid, iss: 'someone-else' }), { key: customerKey() }),
      'no seller claim': handMadeJwt(customerClaims({ ...valid, sid: undefined }), { key: customerKey() }),
      'no session claim': handMadeJwt(customerClaims({ ...valid, sess: undefined }), { key: customerKey() }),
      'a made-up session': handMadeJwt(customerClaims({ ...valid, sess: randomUUID() }), { key: customerKey() }),
      "another customer's session": handMadeJwt(customerClaims({ ...valid, sess: ben.sessionId }), { key: customerKey() }),
      'session not a uuid': handMadeJwt(customerClaims({ ...valid, sess: 'x' }), { key: customerKey() }),
      'no expiry': handMadeJwt(customerClaims({ ...valid, exp: undefined }), { key: customerKey() }),
      'subject not a uuid': handMadeJwt(customerClaims({ ...valid, sub: 'admin' }), { key: customerKey() }),
      'tampered payload': `${header}.${Buffer.from(JSON.stringify(tampered)).toString('base64url')}.${signature}`,
      'no signature': `${header}.${payload}.`,
      garbage: 'not-a-jwt',
      'too long': `${header}.${'a'.repeat(5000)}.${signature}`,
    }
    for (const [name, token] of Object.entries(cases)) {
      const res = await getMe(ctx.app, withToken(a, token))
      expect(res.statusCode, name).toBe(401)
      expect(res.json().code, name).toBe('invalid_token')
    }
  })

  it('is never a staff token: another key signs it, for another audience', () => {
    const [header, payload, signature] = ana.accessToken.split('.') as [string, string, string]
    const signedWith = (key: string) => createHmac('sha256', key).update(`${header}.${payload}`).digest('base64url')
    expect(signedWith(customerKey())).toBe(signature)
    expect(signedWith(ctx.app.secrets.staffJwt)).not.toBe(signature)
    expect(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')).aud).toBe('boxoffice:customer')
  })

  it('expires after STF_ACCESS_TOKEN_TTL_SECONDS', async () => {
    const app = await buildTestApp({ env: { STF_ACCESS_TOKEN_TTL_SECONDS: '1' } })
    try {
      const login = await postAuth(app, a, 'login', { email: ana.customer.email, password: ana.password })
      expect(login.json()).toMatchObject({ expires_in: 1 })
      const token = login.json().access_token as string
      // The token says so itself; that it works before then is what every other test shows (a
      // call made right away could come after that second on a busy machine).
      const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { iat: number; exp: number }
      expect(claims.exp - claims.iat).toBe(1)
      // Once the clock is past its expiry (JWT times are whole seconds), it is refused.
      const expiredAt = (claims.exp + 1) * 1000
      while (Date.now() < expiredAt) await new Promise((resolve) => setTimeout(resolve, expiredAt - Date.now()))
      expectError(await getMe(app, withToken(a, token)), 401, 'invalid_token')
    } finally {
      await app.close()
    }
  })
})
