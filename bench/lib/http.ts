import { type Agent, request } from 'node:http'
import { REQUEST_TIMEOUT_S } from './load.js'

/** What a request of a scenario got: its status (0: no answer), body and time. */
export type Answer = { status: number; body: string; ms: number }

/** One JSON request over `agent`; no answer (refused, reset, timed out: `timeoutMs`, `REQUEST_TIMEOUT_S` by default) is status 0, counted, not thrown. */
export function send(
  agent: Agent,
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: string,
  timeoutMs = REQUEST_TIMEOUT_S * 1000,
): Promise<Answer> {
  const started = performance.now()
  return new Promise((resolve) => {
    const lost = () => resolve({ status: 0, body: '', ms: performance.now() - started })
    const req = request(
      url,
      {
        method,
        agent,
        timeout: timeoutMs,
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), ms: performance.now() - started }))
        res.on('error', lost)
      },
    )
    req.on('timeout', () => req.destroy())
    req.on('error', lost)
    req.end(body)
  })
}
