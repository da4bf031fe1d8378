/**
 * The cached catalogue's baseline (issue 41): a bare Fastify route, in its own process (`node`
 * without flags), answering `GET /stf/v1/events` with the very bytes the product answered for
 * the page the benchmark loads. At start-up it fetches that page once from the product
 * (`PAGE_URL`, with `PAGE_AUTHORIZATION` as its Authorization header) and keeps its body and
 * content type; then every request gets them from memory.
 *
 * What it leaves out, and the product's cached route pays for: Basic authentication, the query's
 * validation, the cache's lookup (seller, affiliate scope, URL, age, notices), ETag and
 * compression negotiation, the response headers (security, request id, rate limits, Vary), the
 * request hooks (admission, metrics, logging) and the error envelope. No logger.
 */
import Fastify from 'fastify'

const env = (name: string) => {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is required`)
  return value
}

// Uncompressed, as the benchmark's load asks for it (no Accept-Encoding).
const page = await fetch(env('PAGE_URL'), { headers: { authorization: env('PAGE_AUTHORIZATION'), 'accept-encoding': 'identity' } })
if (!page.ok) throw new Error(`the page answered ${page.status}`)
const body = Buffer.from(await page.arrayBuffer())
const type = page.headers.get('content-type') ?? 'application/json; charset=utf-8'

const app = Fastify({ logger: false })
app.get('/stf/v1/events', (_request, reply) => {
  reply.type(type).send(body)
})
app.get('/health', async () => ({ ok: true }))

process.once('SIGTERM', () => app.close().then(() => process.exit(0)))
await app.listen({ port: Number(env('PORT')), host: process.env.HOST ?? '127.0.0.1' })
