import { openDatabase } from './src/platform/db/database.js'
const mb = (n: number) => Math.round(n / 1048576)
const show = (label: string) => { const m = process.memoryUsage(); console.log(label, { rss: mb(m.rss), heapUsed: mb(m.heapUsed), heapTotal: mb(m.heapTotal), external: mb(m.external), arrayBuffers: mb(m.arrayBuffers) }) }
show('start')
const db = await openDatabase({ dataDir: '/tmp/memdb' } as never)
show('opened')
await db.migrate()
show('migrated')
globalThis.gc?.()
show('gc')
