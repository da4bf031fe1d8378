import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { verifyWebhook } from '../../test/support/verify-webhook.js'

/**
 * The partner's side of the webhook group: a receiver on 127.0.0.1 that checks every request's
 * signature with the verifier of docs/webhooks.md and counts the events it got (by id: at-least-once may
 * repeat one).
 */
export async function startWebhookReceiver() {
  let secret = ''
  const ids = new Map<string, number>()
  let requests = 0
  let badSignatures = 0
  const types = new Map<string, number>()
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      requests++
      const body = Buffer.concat(chunks).toString('utf8')
      if (!verifyWebhook(body, String(request.headers['boxoffice-signature'] ?? ''), secret)) badSignatures++
      try {
        const event = JSON.parse(body) as { id: string; type: string }
        ids.set(event.id, (ids.get(event.id) ?? 0) + 1)
        types.set(event.type, (types.get(event.type) ?? 0) + 1)
      } catch {
        badSignatures++
      }
      response.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    setSecret(value: string) {
      secret = value
    },
    /** Distinct events, repeats, requests and requests whose signature did not verify. */
    tally: () => ({
      events: ids.size,
      repeats: [...ids.values()].reduce((sum, n) => sum + n - 1, 0),
      requests,
      badSignatures,
      types: Object.fromEntries(types),
    }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
