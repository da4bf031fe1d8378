import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { AppError } from '../errors.js'

/** The size of the map of requests in flight from which it is swept for requests whose client went away. */
const SWEEP_FROM = 1024

/**
 * What a graceful close needs beyond Fastify's own: Fastify stops listening and resolves
 * `close()` without waiting for a request whose body is still arriving, and keep-alive
 * connections would hold the drain open until their timeout. Register before any route.
 * Answers `drain(ms)`, which resolves once no request is in flight (or the time is up).
 */
export function registerGracefulClose(app: FastifyInstance) {
  // Each request in flight and its reply.
  const inFlight = new Map<FastifyRequest, FastifyReply>()
  let closing = false
  // A request whose client went away gets no onResponse. Rather than listen for that on every
  // request (an abort hook costs a listener on each), such requests are dropped when the map
  // has doubled since it was last swept, and whenever the drain looks.
  let sweepAt = SWEEP_FROM
  const sweep = () => {
    for (const request of inFlight.keys()) if (request.raw.socket?.destroyed) inFlight.delete(request)
    sweepAt = Math.max(SWEEP_FROM, inFlight.size * 2)
  }

  // Callback hooks, not async ones: they run on every request, and cost no promise.
  app.addHook('onRequest', (request, reply, done) => {
    // A request arriving on a kept-alive connection during the drain: 503 in our envelope.
    if (closing) {
      reply.header('connection', 'close')
      return done(new AppError('service_unavailable', { message: 'The server is shutting down', headers: { 'retry-after': '1' } }))
    }
    inFlight.set(request, reply)
    if (inFlight.size >= sweepAt) sweep()
    done()
  })
  app.addHook('onResponse', (request, _reply, done) => {
    inFlight.delete(request)
    done()
  })
  // Once closing, each answer ends its connection, so no idle keep-alive socket lingers: those
  // of the requests in flight, and those of the requests refused above.
  app.addHook('preClose', (done) => {
    closing = true
    for (const reply of inFlight.values()) if (!reply.sent) reply.header('connection', 'close')
    done()
  })

  return async function drain(timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs
    sweep()
    while (inFlight.size > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10))
      sweep()
    }
    return inFlight.size
  }
}

/**
 * The first step of closing: wait (at most `timeoutMs`) for the requests in flight, so they finish
 * on an open database. Resources close in the reverse order of their registration, so this plugin
 * goes last.
 */
export const drainFirst = fp<{ drain: (timeoutMs: number) => Promise<number>; timeoutMs: number }>(
  async (app, { drain, timeoutMs }) => {
    app.addHook('onClose', async () => {
      const abandoned = await drain(timeoutMs)
      if (abandoned > 0) app.log.warn({ abandoned }, 'closing with requests still in flight')
    })
  },
  { name: 'drain-first' },
)
