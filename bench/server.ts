import closeWithGrace from 'close-with-grace'
import { loadConfigOrExit } from '../src/platform/config.js'
import { buildBenchApp } from './server/app.js'

/**
 * The server `npm run bench` measures: `src/server.ts` without the demo data, with the
 * benchmark's own routes (bench/server/app.ts). Compiled like the image's dist/ (bench/lib/server.ts).
 */
const config = loadConfigOrExit()

const app = await buildBenchApp({ config })

closeWithGrace({ delay: 10_000 }, async ({ err }) => {
  if (err) app.log.error({ err }, 'shutting down after an uncaught error')
  await app.close()
})

await app.listen({ port: config.port, host: config.host })
