import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { basicAuth } from '../factories/sellers.js'
import { runPastedLines } from '../support/pasted-lines.js'
import { startServerProcess, type ServerProcess } from '../support/server-process.js'
import { eventually } from '../support/smtp-sink.js'

/**
 * README.md's quickstart, run as a newcomer runs it, so that the guide cannot rot: `npm start` on a
 * new embedded database (its own process, on a free port, over a fresh data folder, as
 * demo-seed.test.ts starts it), then the fenced bash blocks of the README's quickstart section
 * pasted into one bash, the first of them (the variables) given the values the banner printed.
 *
 * The demo is seeded only on the embedded database (never on a shared server), so the server here
 * always runs on PGlite, also when TEST_DATABASE_URL is set: the file runs the same on both.
 */

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')

/** The section under `## Quickstart…`, up to the next `## ` heading. */
function quickstartSection(readme: string): string {
  const start = readme.search(/^## Quickstart/m)
  expect(start, 'README.md has a "## Quickstart" section').toBeGreaterThanOrEqual(0)
  const rest = readme.slice(start + 3)
  const end = rest.search(/^## /m)
  return end === -1 ? rest : rest.slice(0, end)
}

/** The text of each ```bash block, in order. */
const bashBlocks = (markdown: string) => [...markdown.matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((m) => m[1]!)

/** `NAME=value NAME=value …` as pairs, in order. */
const assignments = (line: string) =>
  line
    .trim()
    .split(/\s+/)
    .map((word) => /^([A-Z_]+)=(.*)$/.exec(word)!.slice(1) as [string, string])

describe("README.md's quickstart", () => {
  let server: ServerProcess
  let banner: string

  beforeAll(async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'boxoffice-quickstart-'))
    // It seeds before it listens: on a busy machine that takes a while.
    server = await startServerProcess({ SEED_DEMO: 'true', DATA_DIR: dataDir }, { databaseUrl: '', startWithinMs: 150_000 })
    // The banner is printed once the server listens, a moment after it starts answering; its pix lines end it.
    await eventually(() => /\/stf\/v1\/orders\/\$ORDER \| node -p .*\n/.test(server.output()), 30_000)
    banner = server.output()
  }, 200_000)

  afterAll(async () => {
    expect(await server?.stop()).toBe(0)
  })

  it('sells a ticket for tonight to a guest, pays it, reads it with the order token and scans it ok, every line as pasted', async () => {
    const [variables, ...steps] = bashBlocks(quickstartSection(README))
    expect(steps.length, 'a block of variables, then the steps').toBeGreaterThanOrEqual(1)
    // The banner prints the variables on one line; the README's first block sets the same ones, in the same order.
    const printed = assignments(/^ {4}(BASE=.*)$/m.exec(banner)![1]!)
    expect(assignments(variables!).map(([name]) => name)).toEqual(printed.map(([name]) => name))
    expect(Object.fromEntries(printed)).toMatchObject({ BASE: server.baseUrl })

    // As pasted, stopping at the first line that fails; then what the test reads back.
    const script = ['set -eo pipefail', printed.map(([name, value]) => `${name}=${value}`).join(' '), ...steps, 'printf "\\n%s %s\\n" "$ORDER_ID" "$CODE"']
    const { stdout } = await runPastedLines(script).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`the quickstart stopped:\n${error.stdout ?? ''}\n${error.stderr ?? ''}`)
    })
    const lines = stdout.trim().split('\n')
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\d{4}-\d{2}-\d{2} {2}Stand-up: Noite de Risadas$/),
        expect.stringMatching(/^basket [0-9a-f-]{36}$/),
        'pending 6000',
        '6000 paid',
      ]),
    )
    const [orderId, code] = lines.at(-1)!.split(' ')
    const identifier = /^confirmed ([A-Z2-7]{26})$/.exec(lines.find((line) => line.startsWith('confirmed '))!)![1]!
    // The scan, the last line the README prints.
    expect(lines.at(-3)).toBe(`ok ${identifier}`)

    const { SELLER, KEY, LIST } = Object.fromEntries(printed) as Record<string, string>
    const order = await fetch(`${server.baseUrl}/stf/v1/orders/${orderId}`, { headers: basicAuth(SELLER!, KEY!) })
    expect(order.status).toBe(200)
    expect(await order.json()).toMatchObject({
      status: 'confirmed',
      customer_id: null,
      paid_total: 6000,
      tickets: [{ identifier, code, status: 'valid' }],
    })
    // The ticket is inside on tonight's list: a second scan is refused.
    const device = /"pairing_code":"([A-Z2-7-]+)"/.exec(banner)![1]!
    const token = ((await (await fetch(`${server.baseUrl}/chk/v1/pair`, post({ pairing_code: device }))).json()) as { token: string }).token
    const again = await fetch(`${server.baseUrl}/chk/v1/redeem`, post({ code, list_ids: [LIST] }, { authorization: `Device ${token}` }))
    expect(await again.json()).toMatchObject({ status: 'refused', reason: 'already_redeemed', ticket: { identifier, checked_in: true } })
  }, 120_000)

  it("checks a ticket for tonight out as a guest with the banner's line, answering its order token", async () => {
    const checkout = banner.slice(banner.indexOf('  checkout:'), banner.indexOf('  waiting list:'))
    const asGuest = /^ {4}(BASKET=.*)$/m.exec(checkout)![1]!
    const { stdout } = await runPastedLines([asGuest])
    expect(stdout).toMatch(/^confirmed [0-9a-f-]{36} \S{20,}\n$/)
  }, 60_000)
})

/** A JSON POST. */
const post = (body: object, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
})
