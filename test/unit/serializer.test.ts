import { isResponseSerializationError } from 'fastify-type-provider-zod'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { compileWriter, serializerCompiler } from '../../src/platform/http/serializer.js'
import { ZInstant, ZUuid } from '../../src/platform/http/schemas.js'

const serializerOf = (schema: z.ZodType) => serializerCompiler({ schema, method: 'GET', url: '/x', httpStatus: '200' })
/** What fastify-type-provider-zod wrote: zod's encoding, stringified. */
const byZod = (schema: z.ZodType, value: unknown) => JSON.stringify(z.encode(schema, value))

const ZTicket = z.strictObject({
  id: ZUuid,
  code: z.string(),
  seat: z.object({ row: z.string(), number: z.number().int() }).nullable(),
  status: z.enum(['valid', 'void']),
  kind: z.literal('ticket'),
  note: z.string().optional(),
  tags: z.array(z.string().nullable()),
  issued_at: ZInstant,
})
const ZOrder = z
  .object({
    id: ZUuid,
    total: z.number(),
    paid: z.boolean(),
    coupon: z.string().nullish(),
    tickets: z.array(ZTicket),
    items: z.array(z.object({ quantity: z.number().default(1), label: z.string().describe('what it is') })).meta({ id: 'Items' }),
  })
  .describe('An order')

const ticket = {
  id: '0b3c5a2e-1111-4222-8333-444455556666',
  code: 'Q"uo\\te\u2028 \ud800 é',
  seat: { row: 'A', number: 7, extra: 'left out' },
  status: 'valid',
  kind: 'ticket',
  tags: ['a', null],
  issued_at: '2026-11-28T03:00:00.000Z',
}

describe('the compiled response writer', () => {
  it('writes what zod encoded and stringified writes: declared keys in order, optional ones when present', () => {
    const write = compileWriter(ZOrder)!
    for (const order of [
      {
        tickets: [ticket, { ...ticket, seat: null, note: 'n', status: 'void' }],
        paid: true,
        total: 12.5,
        id: ticket.id,
        items: [{ label: 'x', quantity: 2 }],
        internal: 1,
      },
      { id: ticket.id, total: 0, paid: false, coupon: null, tickets: [], items: [] },
      { id: ticket.id, total: -1e21, paid: false, coupon: 'C', tickets: [], items: [{ label: '', quantity: 0 }] },
      { id: ticket.id, total: 3, paid: false, coupon: undefined, tickets: [], items: [] },
    ]) {
      expect(write(order)).toBe(byZod(ZOrder, order))
    }
  })

  it('hands a value of another type to zod, which refuses it as before (a 500)', () => {
    const serialize = serializerOf(ZOrder)
    const valid = { id: ticket.id, total: 1, paid: true, tickets: [ticket], items: [] }
    expect(serialize(valid)).toBe(byZod(ZOrder, valid))
    for (const wrong of [
      { ...valid, total: '1' },
      { ...valid, total: Number.NaN },
      { ...valid, paid: undefined },
      { ...valid, tickets: [{ ...ticket, status: 'lost' }] },
      { ...valid, tickets: [{ ...ticket, issued_at: new Date() }] },
      { ...valid, items: [{ label: 'no quantity' }] },
      [valid],
      null,
    ]) {
      expect(() => serialize(wrong)).toThrow()
      try {
        serialize(wrong)
      } catch (error) {
        expect(isResponseSerializationError(error)).toBe(true)
      }
    }
  })

  it('does not check formats nor refinements on the way out: the answers were built by the code', () => {
    const value = { id: 'not-a-uuid', total: 1.5, paid: true, tickets: [], items: [] }
    expect(serializerOf(ZOrder)(value)).toBe('{"id":"not-a-uuid","total":1.5,"paid":true,"tickets":[],"items":[]}')
  })

  it('leaves to zod the schemas it does not write (unions, transforms, open objects)', () => {
    expect(compileWriter(z.union([z.string(), z.number()]))).toBeNull()
    expect(compileWriter(z.object({ a: z.string().transform((s) => s.length) }))).toBeNull()
    expect(compileWriter(z.looseObject({ a: z.string() }))).toBeNull()
    const open = z.looseObject({ a: z.string() })
    expect(serializerOf(open)({ a: 'x', b: 1 })).toBe('{"a":"x","b":1}')
  })
})
