import http from 'node:http'
import https from 'node:https'
import { isIP } from 'node:net'
import { guardedLookup, resolveAllowed } from '../net/address-guard.js'

export type HttpSenderOptions = {
  /** Headers and body must have arrived within this time. */
  timeoutMs: number
  /** Loopback, private, link-local and metadata addresses may be reached (development, tests). */
  allowPrivate: boolean
  userAgent: string
  /** At most this much of a response body is read; the rest is not waited for. */
  maxResponseBytes?: number
}

/** A receiver's answer: its status (any, 3xx included: redirects are never followed) and how long it took. */
export type HttpAnswer = { status: number; durationMs: number }

export type HttpSender = {
  /** POSTs a JSON body; throws on a refused address, a network failure or the timeout. */
  postJson(url: string, body: string, headers: Record<string, string>): Promise<HttpAnswer>
  close(): void
}

/**
 * Posts to URLs that users gave, safely: the host is resolved when the request is made and every
 * address it resolves to must be public (unless `allowPrivate`), and the socket connects to the
 * checked address (the agent's `lookup`), so a DNS answer changed after the URL was accepted
 * (rebinding) cannot lead it to this host or its network. Redirects are never followed, at most
 * `maxResponseBytes` of an answer are read, and the whole exchange has `timeoutMs`. Connections
 * are kept alive and reused per host.
 */
export function createHttpSender(options: HttpSenderOptions): HttpSender {
  const { timeoutMs, allowPrivate, userAgent } = options
  const maxResponseBytes = options.maxResponseBytes ?? 64 * 1024
  const lookup = guardedLookup(allowPrivate)
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 16, lookup } as http.AgentOptions),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 16, lookup } as https.AgentOptions),
  }

  async function postJson(target: string, body: string, headers: Record<string, string>): Promise<HttpAnswer> {
    const url = new URL(target)
    const agent = agents[url.protocol as keyof typeof agents]
    if (!agent) throw new Error(`unsupported scheme ${url.protocol}`)
    // A literal address is never looked up: it is checked here instead.
    if (isIP(url.hostname.replace(/^\[|\]$/g, ''))) await resolveAllowed(url.hostname, allowPrivate)
    const started = performance.now()
    const transport = url.protocol === 'https:' ? https : http
    return new Promise<HttpAnswer>((resolve, reject) => {
      const request = transport.request(
        url,
        {
          method: 'POST',
          agent,
          lookup,
          headers: { 'content-type': 'application/json', 'user-agent': userAgent, 'content-length': Buffer.byteLength(body), ...headers },
        },
        (response) => {
          let read = 0
          const done = () => {
            clearTimeout(timer)
            resolve({ status: response.statusCode ?? 0, durationMs: Math.round(performance.now() - started) })
          }
          response.on('data', (chunk: Buffer) => {
            read += chunk.length
            if (read > maxResponseBytes) {
              // Enough: the status is all that counts. The connection is not reused.
              response.destroy()
              done()
            }
          })
          response.on('end', done)
          response.on('error', (error) => {
            clearTimeout(timer)
            reject(error)
          })
        },
      )
      const timer = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
      request.on('error', (error) => {
        clearTimeout(timer)
        reject(error)
      })
      request.end(body)
    })
  }

  return {
    postJson,
    close() {
      agents['http:'].destroy()
      agents['https:'].destroy()
    },
  }
}
