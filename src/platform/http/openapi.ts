import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod'

const DESCRIPTION = `White-label ticket selling.

* \`/stf/v1\`: partner storefronts. HTTP Basic on every call: username = seller id, password = API key.
  A signed-in customer adds \`X-Customer-Token\`; \`X-Affiliate-Code\` attributes the call to an affiliate.
* \`/iam/v1\`: staff identity and access. \`Authorization: Bearer <access_token>\` from \`POST /iam/v1/auth/login\`.
* \`/adm/v1\`: back office, with the same staff tokens, checked against permissions.

Errors share one envelope \`{ code, message, trace_id }\` (validation errors add \`details\`, a list; some
refusals add \`details\`, an object: \`basket_checked_out\` its \`order_id\`, \`price_changed\` the new total). Every
response carries \`X-Trace-Id\`; send \`X-Request-Id\` to choose it. Money is integer centavos.`

/**
 * The OpenAPI 3.1 document, generated from the zod schemas that validate requests, served
 * at `/openapi.json`, with a browsable reference at `/docs`. Register before any route.
 */
export async function registerOpenApi(app: FastifyInstance, version: string) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Boxoffice API', version, description: DESCRIPTION },
      tags: [
        { name: 'storefront', description: 'Partner storefronts (/stf/v1), HTTP Basic' },
        { name: 'iam', description: 'Staff identity and access (/iam/v1), Bearer' },
        { name: 'backoffice', description: 'Back office (/adm/v1), Bearer with permissions' },
      ],
      components: {
        securitySchemes: {
          sellerBasic: { type: 'http', scheme: 'basic', description: 'username = seller id, password = API key' },
          customerToken: { type: 'apiKey', in: 'header', name: 'X-Customer-Token' },
          staffBearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  })
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true, tryItOutEnabled: false },
    staticCSP: true,
  })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}
