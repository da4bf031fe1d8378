import { describe, expect, it } from 'vitest'
import { getOrder } from '../../src/domain/orders/get-order.js'
import { orderEmailContexts, orderPendingEmail } from '../../src/domain/orders/order-emails.js'
import { useTestApp } from '../build-app.js'
import { createTestEvent, createTestInventory } from '../factories/catalog.js'
import { createTestCustomer } from '../factories/customers.js'
import { placeTestOrder } from '../factories/orders.js'
import { createTestSeller } from '../factories/sellers.js'

const ctx = useTestApp()

describe('orderEmailContexts', () => {
  it("reads a real order's buyer, seller (its language, time zone and storefront) and event titles, from which its email is written", async () => {
    const shop = await createTestSeller(ctx.app, {
      name: 'Mumbai Tickets',
      storefrontUrl: 'https://mumbai.example.com/',
      settings: { locale: 'en', timezone: 'Asia/Kolkata' },
    })
    const buyer = await createTestCustomer(ctx.app, shop, { firstName: 'Priya' })
    const festival = await createTestEvent(ctx.app, shop.seller.id, { title: 'Monsoon Jazz' })
    const play = await createTestEvent(ctx.app, shop.seller.id, { title: 'Hamlet' })
    const lawn = await createTestInventory(ctx.app, festival, { name: 'Lawn', price: 123_456 })
    const stalls = await createTestInventory(ctx.app, play, { name: 'Stalls', price: 5000 })
    const { id: orderId } = await placeTestOrder(ctx.app, buyer.headers, [
      { inventory_id: lawn.id, quantity: 2 },
      { inventory_id: stalls.id, quantity: 1 },
    ])

    const contexts = await orderEmailContexts(ctx.app.db, [orderId, '00000000-0000-4000-8000-000000000000'])
    expect([...contexts.keys()]).toEqual([orderId])
    const context = contexts.get(orderId)!
    expect(context).toEqual({
      seller: { name: 'Mumbai Tickets', storefrontUrl: 'https://mumbai.example.com', settings: { locale: 'en', timezone: 'Asia/Kolkata' } },
      to: { email: buyer.customer.email, name: 'Priya' },
      guest: false,
      eventTitles: new Map([
        [festival.id, 'Monsoon Jazz'],
        [play.id, 'Hamlet'],
      ]),
    })
    expect(await orderEmailContexts(ctx.app.db, [])).toEqual(new Map())

    const order = await getOrder(ctx.app.db, { codes: ctx.app.ticketCodes, sellerId: shop.seller.id, affiliate: null, customerId: null, orderId })
    const email = orderPendingEmail(context, order)
    expect(email.to).toBe(buyer.customer.email)
    expect(email.text).toMatch(/^Hello Priya,\n/)
    expect(email.text).toContain('pay R$2,519.12 by Pix no later than ')
    expect(email.text).toContain('- 2 × Monsoon Jazz — Lawn, ')
    expect(email.text).toContain('- 1 × Hamlet — Stalls, ')
    // The deadline on the Kolkata clock (UTC+5:30), not in UTC.
    const local = new Date(new Date(order.payment_due_at!).getTime() + 330 * 60_000)
    const hours = local.getUTCHours()
    const clock = `${hours % 12 === 0 ? 12 : hours % 12}:${String(local.getUTCMinutes()).padStart(2, '0')}\\s${hours < 12 ? 'AM' : 'PM'}`
    expect(email.text).toMatch(new RegExp(`no later than \\w+, \\w+ ${local.getUTCDate()}, ${local.getUTCFullYear()} at ${clock} GMT\\+5:30\\.`))
    expect(email.text).not.toContain(order.payment_due_at!.slice(0, 16))
  })
})
