import { existsSync } from 'node:fs'
import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.js'
import { ConfigError, loadConfig, type Config } from './platform/config.js'

if (existsSync('.env')) process.loadEnvFile('.env')

let config: Config
try {
  config = loadConfig()
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  process.stderr.write(`${error.message}\n`)
  process.exit(1)
}

const app = await buildApp({ config })

// SIGTERM/SIGINT: stop accepting, let in-flight requests finish (new ones get 503),
// close the pool and exit 0. A second signal or the delay running out forces the exit.
closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'shutting down after an uncaught error')
  else app.log.info({ signal }, 'shutting down')
  await app.close()
})

try {
  await app.listen({ port: config.port, host: config.host })
} catch (error) {
  app.log.fatal({ err: error }, 'could not listen')
  await app.close()
  process.exit(1)
}
