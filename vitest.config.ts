import { defineConfig } from 'vitest/config'

// Each worker opens one database (a fresh PGlite costs ~4 s and ~800 MiB) and every test
// file truncates it, so modules are shared across the files of a worker (isolate: false).
const shared = {
  globalSetup: ['./test/support/global-setup.ts'],
  isolate: false,
  pool: 'forks' as const,
  maxWorkers: 2,
  testTimeout: 30_000,
  hookTimeout: 60_000,
}

export default defineConfig({
  test: {
    projects: [
      { test: { ...shared, name: 'default', include: ['test/unit/**/*.test.ts', 'test/http/**/*.test.ts'] } },
      { test: { ...shared, name: 'reliability', include: ['test/reliability/**/*.test.ts'], testTimeout: 120_000, maxWorkers: 1 } },
    ],
  },
})
