import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { IMAGE_ENV, IMAGE_NODE_FLAGS } from '../../bench/lib/server.js'
import { KNOWN_ENV } from '../../src/platform/config.js'

// No Docker engine runs here, so the compose file and the Dockerfile are checked by reading.
type Service = {
  build?: unknown
  image?: string
  environment?: Record<string, string>
  depends_on?: Record<string, { condition: string }>
  healthcheck?: { test: string[] | string }
  ports?: string[]
  profiles?: string[]
}
const compose = parse(readFileSync('docker-compose.yml', 'utf8')) as { services: Record<string, Service>; volumes?: Record<string, unknown> }

describe('docker-compose.yml', () => {
  it('runs the app, PostgreSQL and a mail catcher, each with a healthcheck, and Redis for replicas on request', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['app', 'mailpit', 'postgres', 'redis'])
    expect(compose.services.redis?.profiles).toEqual(['redis'])
    expect(compose.services.redis?.image).toMatch(/^redis:/)
    for (const name of ['app', 'mailpit', 'postgres']) expect(compose.services[name]?.profiles, name).toBeUndefined()
    for (const [name, service] of Object.entries(compose.services)) {
      expect(service.healthcheck?.test, name).toBeTruthy()
    }
    expect(compose.services.postgres?.image).toMatch(/^postgres:15/)
    expect(compose.services.mailpit?.image).toMatch(/^axllent\/mailpit:/)
    expect(compose.volumes).toHaveProperty('pgdata')
  })

  it('starts the app only once the database and the mail catcher are healthy', () => {
    const app = compose.services.app!
    expect(app.build).toBeTruthy()
    expect(app.depends_on).toEqual({ postgres: { condition: 'service_healthy' }, mailpit: { condition: 'service_healthy' } })
  })

  it('gives the app only variables the configuration knows, pointing at the other services', () => {
    const env = compose.services.app!.environment!
    for (const name of Object.keys(env)) expect(KNOWN_ENV, name).toContain(name)
    expect(env.DATABASE_URL).toMatch(/^postgres:\/\/[^@]+@postgres:5432\//)
    expect(env.SMTP_URL).toBe('smtp://mailpit:1025')
    expect(env.JWT_SECRET).toMatch(/^\$\{JWT_SECRET:\?/)
    expect(env.HOST).toBe('0.0.0.0')
  })

  it('publishes ports on the loopback interface only', () => {
    for (const service of Object.values(compose.services)) {
      for (const port of service.ports ?? []) expect(port).toMatch(/^127\.0\.0\.1:/)
    }
  })
})

describe('Dockerfile', () => {
  const dockerfile = readFileSync('Dockerfile', 'utf8')
  it('builds in one stage and runs production dependencies as a non-root user in another', () => {
    expect(dockerfile.match(/^FROM /gm)).toHaveLength(2)
    expect(dockerfile).toMatch(/npm ci --omit=dev/)
    expect(dockerfile).toMatch(/^USER node$/m)
    expect(dockerfile).toMatch(/COPY migrations/)
    expect(dockerfile).toMatch(/HEALTHCHECK .*\n.*\/iam\/v1\/health/)
  })

  it('builds and runs on a supported Node LTS that package.json engines allows', () => {
    const majors = [...dockerfile.matchAll(/^FROM node:(\d+)-bookworm-slim/gm)].map((m) => Number(m[1]))
    expect(majors).toHaveLength(2)
    expect(new Set(majors).size).toBe(1)
    // Node 20 reached its end of life in April 2026; 22 and 24 are LTS lines.
    expect([22, 24]).toContain(majors[0])
    const engines = (JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } }).engines.node
    expect(engines).toContain(`^${majors[0]}`)
  })

  it('runs the server with the Node flags the benchmark measures', () => {
    expect(dockerfile).toContain(`ENV NODE_OPTIONS="${IMAGE_NODE_FLAGS.join(' ')}"\n`)
  })

  it('runs the server, and `npm start`, with the allocator setting the benchmark measures', () => {
    const start = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start
    expect(Object.keys(IMAGE_ENV)).not.toHaveLength(0)
    for (const [name, value] of Object.entries(IMAGE_ENV)) {
      expect(dockerfile).toContain(`ENV ${name}=${value}\n`)
      expect(start).toContain(`${name}=${value} node `)
    }
  })

  it('runs `npm start` with the same young generation as the image', () => {
    const start = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start
    const semiSpace = IMAGE_NODE_FLAGS.find((flag) => flag.startsWith('--max-semi-space-size='))
    expect(semiSpace).toBeDefined()
    expect(start).toContain(`node ${semiSpace} `)
  })
})

describe('.env.example', () => {
  it('documents every variable the configuration reads', () => {
    const example = readFileSync('.env.example', 'utf8')
    for (const name of KNOWN_ENV) expect(example, name).toMatch(new RegExp(`^#? ?${name}=`, 'm'))
  })
})
