import { describe, expect, it } from 'vitest'
import { finishDocument } from '../../src/platform/http/openapi.js'

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const json = (name: string) => ({ content: { 'application/json': { schema: ref(name) } } })

describe('finishDocument', () => {
  it('merges input twins that say the same, keeps those that differ, drops the unused and names lone inputs plainly', () => {
    const item = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }
    const doc = finishDocument({
      paths: {
        '/things': {
          post: {
            requestBody: json('ThingInput'),
            responses: { '201': { description: 'Default Response', ...json('Thing') } },
          },
          put: { requestBody: json('CreateThingRequestInput'), responses: { '200': { description: 'Default Response', ...json('Listed') } } },
          patch: { requestBody: json('ListedInput'), responses: { '200': { description: 'Default Response', ...json('Listed') } } },
        },
      },
      components: {
        schemas: {
          // Twins through a reference: ThingInput refers to ItemInput, Thing to Item.
          ItemInput: item,
          Item: { required: ['n'], properties: { n: { type: 'integer' } }, type: 'object' },
          ThingInput: { type: 'object', properties: { item: ref('ItemInput') } },
          Thing: { type: 'object', properties: { item: ref('Item') } },
          // A default: optional in the request, always there in the response.
          ListedInput: { type: 'object', properties: { n: { type: 'integer', default: 1 } } },
          Listed: { type: 'object', properties: { n: { type: 'integer', default: 1 } }, required: ['n'] },
          CreateThingRequestInput: { type: 'object', properties: { name: { type: 'string' } } },
          CreateThingRequest: { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false },
          Unused: { type: 'string' },
        },
      },
    } as never) as unknown as {
      paths: Record<string, Record<string, { requestBody: unknown; operationId: string; responses: Record<string, unknown> }>>
      components: { schemas: Record<string, unknown> }
    }

    expect(Object.keys(doc.components.schemas)).toEqual(['CreateThingRequest', 'Item', 'Listed', 'ListedInput', 'Thing'])
    expect(doc.components.schemas.Thing).toEqual({ type: 'object', properties: { item: ref('Item') } })
    // The request shape of CreateThingRequest keeps what the requests take, under the plain name.
    expect(doc.components.schemas.CreateThingRequest).toEqual({ type: 'object', properties: { name: { type: 'string' } } })
    expect(doc.paths['/things']!.post!.requestBody).toEqual(json('Thing'))
    expect(doc.paths['/things']!.put!.requestBody).toEqual(json('CreateThingRequest'))
  })

  it('gives an operation without an operationId one from its method and path, and a default error response', () => {
    const doc = finishDocument({
      paths: { '/adm/v1/orders/{id}/tickets/{identifier}/void': { post: { responses: { '409': { description: 'Default Response', ...json('Error') } } } } },
      components: { schemas: { Error: { type: 'object' } } },
    }) as unknown as { paths: Record<string, Record<string, { operationId: string; responses: Record<string, { description: string }> }>> }
    const operation = doc.paths['/adm/v1/orders/{id}/tickets/{identifier}/void']!.post!
    expect(operation.operationId).toBe('postAdmV1OrdersByIdTicketsByIdentifierVoid')
    expect(operation.responses.default).toEqual({ description: expect.any(String), ...json('Error') })
    expect(operation.responses['409']!.description).toMatch(/^Conflict: .*`insufficient_inventory`/)
  })
})
