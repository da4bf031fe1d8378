import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'
import type { FastifyInstance, FastifyReply, onSendHookHandler } from 'fastify'
import { addRouteHook } from './route-hooks.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Compress this route's larger answers (`br` or `gzip`, as the client's `Accept-Encoding` allows). */
    compress?: boolean
  }
}

export type ContentEncoding = 'br' | 'gzip' | 'identity'

/** Smaller answers gain too little to be worth the work. */
const MIN_BYTES = 1024

const brotli = promisify(brotliCompress)
const gzipped = promisify(gzip)

/**
 * The encoding of an answer to this `Accept-Encoding`: brotli before gzip (at their fastest
 * settings brotli is both quicker and smaller on a seat map's JSON), else none. A coding refused
 * with `q=0` is never chosen.
 */
export function negotiateEncoding(header: string | string[] | undefined): ContentEncoding {
  if (!header) return 'identity'
  const accepted = new Set<string>()
  for (const part of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';')
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    if (name && !(q && Number(q.slice(2)) === 0)) accepted.add(name)
  }
  if (accepted.has('br')) return 'br'
  if (accepted.has('gzip') || accepted.has('*')) return 'gzip'
  return 'identity'
}

/** Compresses a body at a speed a request can afford (brotli quality 1, gzip level 1), off the event loop. */
export const compressBody = (body: string | Buffer, encoding: Exclude<ContentEncoding, 'identity'>): Promise<Buffer> =>
  encoding === 'br'
    ? brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 1, [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(body) } })
    : gzipped(body, { level: 1 })

/**
 * Compresses the successful answers of the routes with `config: { compress: true }` registered in
 * this scope (the product has no compression in front of it), in a hook of those routes' own: the
 * scope's other routes do not pass through it. Register it before any hook that keeps answers
 * (the catalogue cache), so that what is kept is what goes out: an answer already carrying a
 * `Content-Encoding` (one kept compressed) is left alone.
 */
export function registerCompression(app: FastifyInstance) {
  app.addHook('onRoute', (route) => {
    if (route.config?.compress) addRouteHook(route, 'onSend', compressAnswer)
  })
}

const compressAnswer: onSendHookHandler = (request, reply, payload, done) => {
  if (reply.statusCode !== 200 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return done(null, payload)
  addVary(reply, 'accept-encoding')
  if (reply.hasHeader('content-encoding') || Buffer.byteLength(payload) < MIN_BYTES) return done(null, payload)
  const encoding = negotiateEncoding(request.headers['accept-encoding'])
  if (encoding === 'identity') return done(null, payload)
  compressBody(payload, encoding).then(
    (compressed) => {
      reply.header('content-encoding', encoding).removeHeader('content-length')
      done(null, compressed)
    },
    (error: Error) => done(error),
  )
}

/** Adds header names to the answer's `Vary`, keeping those other hooks put there. */
export function addVary(reply: FastifyReply, ...names: string[]) {
  const current = reply.getHeader('vary')
  const listed = (typeof current === 'string' ? current.split(',') : []).map((name) => name.trim()).filter(Boolean)
  const lower = new Set(listed.map((name) => name.toLowerCase()))
  for (const name of names) if (!lower.has(name.toLowerCase())) listed.push(name)
  reply.header('vary', listed.join(', '))
}
