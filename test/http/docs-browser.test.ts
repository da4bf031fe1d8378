import { existsSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp } from '../build-app.js'
import { resetDatabase, testDatabase } from '../support/database.js'

const CHROMIUM = '/usr/bin/chromium'
const available = existsSync(CHROMIUM)
if (!available) console.warn(`docs browser test skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`)

describe.skipIf(!available)('/docs in a real browser', () => {
  let app: FastifyInstance
  let browser: Browser
  let baseUrl: string

  beforeAll(async () => {
    await resetDatabase(await testDatabase())
    app = await buildTestApp()
    await app.listen({ port: 0, host: '127.0.0.1' })
    baseUrl = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  it('lists every operation of the OpenAPI document, grouped by route group', async () => {
    const doc = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> }
    const expected = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`))
    expect(expected.length).toBeGreaterThan(0)

    // The UI draws only the operations in view: a page tall enough to show them all at once.
    const page = await browser.newPage({ viewport: { width: 1280, height: 40_000 } })
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(`${baseUrl}/docs`, { waitUntil: 'networkidle' })
    await expect.poll(() => page.locator('.opblock-summary').count(), { timeout: 30_000 }).toBeGreaterThanOrEqual(expected.length)
    const listed = await page.$$eval('.opblock-summary', (blocks) =>
      blocks.map((b) => {
        const method = b.querySelector('.opblock-summary-method')?.textContent?.trim() ?? ''
        const path = b.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? b.querySelector('.opblock-summary-path')?.textContent?.trim() ?? ''
        return `${method} ${path.replace(/\u200b/g, '')}`
      }),
    )
    expect(listed.sort()).toEqual(expected.sort())
    for (const prefix of new Set(expected.map((e) => e.split(' ')[1]!.split('/').slice(0, 3).join('/')))) {
      expect(
        listed.some((l) => l.includes(prefix)),
        prefix,
      ).toBe(true)
    }
    expect(errors).toEqual([])
    await page.screenshot({ path: 'docs-screenshot.png' }).catch(() => undefined)
    await page.close()
  }, 60_000)
})
