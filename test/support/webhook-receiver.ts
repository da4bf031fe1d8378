import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { and, eq, sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { webhookDeliveries } from '../../src/domain/webhooks/webhooks.table.js'

export type ReceivedWebhook = {
  headers: IncomingHttpHeaders
  body: string
  json: { id: string; type: string; data: Record<string, unknown> } & Record<string, unknown>
}

/** What the receiver answers a request with: a status, and optionally headers and a body. */
export type Answer = { status: number; headers?: Record<string, string>; body?: string }

/**
 * A real HTTP receiver on 127.0.0.1 (port 0): records every request with its raw body and answers
 * with `answer` (200 unless set), which a test may change between deliveries.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = []
  answer: (request: ReceivedWebhook) => Answer = () => ({ status: 200 })
  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer()
    const receiver = new WebhookReceiver(server)
    server.on('request', (request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8')
        let json = {} as ReceivedWebhook['json']
        try {
          json = JSON.parse(body)
        } catch {
          // Recorded as it came.
        }
        const got = { headers: request.headers, body, json }
        receiver.received.push(got)
        const answer = receiver.answer(got)
        response.writeHead(answer.status, answer.headers).end(answer.body ?? '')
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return receiver
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port
  }

  url(path = '/hooks'): string {
    return `http://127.0.0.1:${this.port}${path}`
  }

  /** Requests of one event type (in the order they came). */
  of(type: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.json.type === type)
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise((resolve) => this.server.close(resolve))
  }
}

/** Runs the app's webhook worker until nothing is left to send now (a bounded number of passes). */
export async function drainWebhooks(app: FastifyInstance): Promise<void> {
  for (let pass = 0; pass < 50; pass++) {
    await app.outbox.runOnce('webhook')
    const [due] = await app.db
      .select({ n: sql<number>`count(*)::int` })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.status, 'pending'), sql`${webhookDeliveries.nextAttemptAt} <= now()`))
    if (Number(due!.n) === 0) return
  }
  throw new Error('deliveries still due after 50 passes')
}
