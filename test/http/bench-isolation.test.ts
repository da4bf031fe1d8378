import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildBenchApp } from '../../bench/server/app.js'
import { buildTestApp, testConfig } from '../build-app.js'
import { createTestSeller } from '../factories/sellers.js'
import { resetDatabase, testDatabase } from '../support/database.js'

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(path.join(dir, entry.name)) : [path.join(dir, entry.name)]))

beforeAll(async () => {
  await resetDatabase(await testDatabase())
})

describe('the benchmark stays out of the product', () => {
  it('src/ holds no benchmark code and reads no switch that would open it', () => {
    const src = path.resolve(import.meta.dirname, '../../src')
    for (const file of files(src)) {
      const text = readFileSync(file, 'utf8')
      // Static and dynamic imports alike (the old switch loaded the routes with `await import(…)`).
      expect(text, file).not.toMatch(/(from|import\(|require\()\s*['"`][^'"`]*bench/)
      expect(text, file).not.toMatch(/BENCH_MODE|benchMode/)
    }
  })

  it('no configuration opens the benchmark routes in the product', async () => {
    const app = await buildTestApp({ env: { BENCH_MODE: 'true' } })
    try {
      const seller = await createTestSeller(app)
      for (const [method, url] of [
        ['GET', '/bench/ping'],
        ['POST', '/bench/seed'],
        ['POST', '/bench/raw-sell'],
        ['GET', '/bench/events'],
      ] as const) {
        expect((await app.inject({ method, url })).statusCode, `${method} ${url}`).toBe(404)
      }
      expect((await app.inject({ method: 'GET', url: '/stf/v1/bench/ping', headers: seller.auth })).statusCode).toBe(404)
    } finally {
      await app.close()
    }
  })

  describe("the benchmark's own server", () => {
    let bench: Awaited<ReturnType<typeof buildBenchApp>>
    beforeAll(async () => {
      bench = await buildBenchApp({ config: testConfig(), database: await testDatabase(), startWorkers: false })
      await bench.ready()
    })
    afterAll(() => bench?.close())

    it('is the product app with its baseline routes added, the storefront one behind Basic authentication', async () => {
      const seller = await createTestSeller(bench)
      expect((await bench.inject({ method: 'GET', url: '/bench/ping' })).statusCode).toBe(200)
      expect((await bench.inject({ method: 'GET', url: '/stf/v1/bench/ping' })).statusCode).toBe(401)
      expect((await bench.inject({ method: 'GET', url: '/stf/v1/bench/ping', headers: seller.auth })).statusCode).toBe(200)
      expect((await bench.inject({ method: 'GET', url: '/stf/v1/events', headers: seller.auth })).statusCode).toBe(200)
    })
  })
})
