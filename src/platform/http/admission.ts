import { performance } from 'node:perf_hooks'
import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { addRouteHook } from './route-hooks.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Admission class while the process is saturated: `first` (a buyer finishing what it holds,
     * e.g. a checkout) is served before `later` (a new arrival, e.g. a new basket). Unset: served
     * as it comes.
     */
    admission?: 'first' | 'later'
  }
}

export type AdmissionOptions = {
  /** Event-loop utilisation (0..1, over the last `sampleMs`) from which the process counts as saturated. */
  saturation: number
  /** The longest a `later` request waits for its turn: arrivals are deferred, never starved. */
  maxWaitMs: number
  sampleMs?: number
}

export type Admission = {
  /** Requests of class `first` in progress, and `later` ones waiting for them. */
  state(): { first: number; waiting: number; saturated: boolean }
}

const kFirst = Symbol('admission.first')
type Tracked = FastifyRequest & { [kFirst]?: boolean }

/**
 * `app.admission`: priority admission. When the event loop is saturated (a flash sale: thousands of
 * arrivals a second, most of them refused), the buyers who already hold tickets wait for their
 * checkout behind every new arrival's parsing, authentication and refusal, on one event loop. While
 * it is saturated and a `first` request is in progress, a `later` request waits, before its body is
 * parsed, for a `first` one to finish (one out, one in; all of them once none is left, or once
 * `maxWaitMs` passed); so the holders' checkouts run on an event loop that is mostly theirs. An
 * unsaturated process admits everything at once.
 *
 * Only the order changes: every request is answered, nothing is refused here. Per process: the
 * contended resource is this process's CPU.
 */
export const admissionPlugin = fp<AdmissionOptions>(
  async (app, options) => {
    let first = 0
    let saturated = false
    const waiting: { release: () => void; since: number }[] = []
    let last = performance.eventLoopUtilization()

    const releaseAll = () => {
      for (const waiter of waiting.splice(0)) waiter.release()
    }
    const sampler = setInterval(() => {
      const now = performance.eventLoopUtilization()
      saturated = performance.eventLoopUtilization(now, last).utilization >= options.saturation
      last = now
      if (!saturated) return releaseAll()
      // Deferred, never starved: the longest waiters go once their time is up.
      const due = performance.now() - options.maxWaitMs
      while (waiting.length > 0 && waiting[0]!.since <= due) waiting.shift()!.release()
    }, options.sampleMs ?? 50)
    sampler.unref()

    const done = (request: Tracked) => {
      if (!request[kFirst]) return
      request[kFirst] = false
      first--
      // One out, one in: each holder that finishes lets the longest waiter in, so the sale keeps
      // filling while the holders' checkouts keep the event loop; all of them once none is left.
      if (first === 0) releaseAll()
      else waiting.shift()?.release()
    }

    // Hooks of the classed routes' own: the other routes do not pass through them. A `later`
    // request waits after its route's scopes have authenticated it, before its body is parsed.
    app.addHook('onRoute', (route) => {
      const admission = route.config?.admission
      if (admission === 'first') {
        addRouteHook(route, 'onRequest', (request: Tracked, _reply, next) => {
          request[kFirst] = true
          first++
          next()
        })
        addRouteHook(route, 'onResponse', (request: Tracked, _reply, next) => {
          done(request)
          next()
        })
        addRouteHook(route, 'onRequestAbort', (request: Tracked, next) => {
          done(request)
          next()
        })
      } else if (admission === 'later') {
        addRouteHook(route, 'onRequest', (_request, _reply, next) => {
          if (saturated && first > 0) waiting.push({ release: () => next(), since: performance.now() })
          else next()
        })
      }
    })
    app.addHook('onClose', (_app, next) => {
      clearInterval(sampler)
      releaseAll()
      next()
    })
    app.decorate('admission', { state: () => ({ first, waiting: waiting.length, saturated }) })
  },
  { name: 'admission' },
)
