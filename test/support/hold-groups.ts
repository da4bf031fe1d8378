import type { FastifyInstance } from 'fastify'

/**
 * Forcing holds and checkouts into one group (hold-queue.ts `inGroup`): with one turn per
 * inventory (HOLDS_PER_INVENTORY=1), the test takes the inventories' turn itself, sends the
 * requests, each once the one before waits (so they wait in this order), and lets go: they are
 * decided together. And the same requests one by one, to compare their answers with.
 */
export type Request = () => Promise<{ statusCode: number; body: string }>

/** Waits until `ready` holds, looking every few milliseconds (bounded: 10,000 looks, at least 20 s on a busy machine). */
export async function until(ready: () => boolean | Promise<boolean>, what: string) {
  for (let n = 0; !(await ready()); n++) {
    if (n === 10_000) throw new Error(`never: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

/**
 * Sends the requests while the test holds these inventories' turn, each once the one before is
 * waiting (so they wait in this order), runs `meanwhile`, lets go, and answers them in order
 * (`sent`: their answers as promises, as soon as they are all sent, and the turn let go).
 */
export async function sendGrouped(app: FastifyInstance, inventoryIds: string[], requests: Request[], meanwhile: () => Promise<unknown> = async () => {}) {
  let letGo!: () => void
  const held = app.holds.inTurn(inventoryIds, () => new Promise<void>((resolve) => (letGo = resolve)))
  await until(() => letGo !== undefined, 'the test holds the turn')
  const answers: ReturnType<Request>[] = []
  for (const [n, request] of requests.entries()) {
    answers.push(request())
    // The first waits for the turn; each next one joins its group.
    await until(() => app.holds.state().waiting === n + 1, `request ${n + 1} waits`)
  }
  await meanwhile()
  letGo()
  await held
  return answers
}

/** `sendGrouped`, answered in order once all are. */
export const grouped = async (...args: Parameters<typeof sendGrouped>) => Promise.all(await sendGrouped(...args))

/** The same requests, each answered before the next is sent. */
export async function oneByOne(requests: Request[], before: () => Promise<unknown> = async () => {}) {
  await before()
  const answers = []
  for (const request of requests) answers.push(await request())
  return answers
}

/** An answer as a buyer reads it, with the ids that differ between two copies named by role. */
export function answerOf(res: { statusCode: number; body: string }, names: Record<string, string>) {
  let text = res.body
  for (const [id, name] of Object.entries(names)) text = text.replaceAll(id, name)
  const body = JSON.parse(text)
  if (res.statusCode !== 201) return { status: res.statusCode, code: body.code, details: body.details }
  return {
    status: res.statusCode,
    items: (body.items ?? []).map((item: { inventory_id: string; variant: string | null; quantity: number; seats: { id: string }[] | null }) => ({
      inventory: item.inventory_id,
      variant: item.variant,
      quantity: item.quantity,
      seats: item.seats?.map((seat) => seat.id) ?? null,
    })),
    tickets: body.tickets?.length,
  }
}
