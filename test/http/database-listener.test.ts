import { randomBytes } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { describe, expect, it, onTestFinished } from 'vitest'
import { openDatabase, type Database } from '../../src/platform/db/database.js'
import { testDatabaseUrl, usesPostgres } from '../support/database.js'
import { eventually } from '../support/smtp-sink.js'
import { TcpProxy } from '../support/tcp-proxy.js'

/** A channel of this test alone. */
const channel = (name: string) => `test_${name}_${randomBytes(4).toString('hex')}`

/** A database whose listening connection goes through a proxy the test can cut and watch; errors it reports are kept. */
async function proxiedDatabase() {
  const { proxy, url } = await TcpProxy.inFrontOf(await testDatabaseUrl())
  const errors: Error[] = []
  const database = await openDatabase({ url, connectTimeoutMs: 500, onPoolError: (error) => errors.push(error) })
  onTestFinished(async () => {
    await database.close()
    await proxy.down()
  })
  return { proxy, database, errors }
}

/** Subscribes to a channel; `heard` resolves with the first message. */
async function listen(database: Database, name: string, reset: () => void = () => {}): Promise<{ heard: Promise<string> }> {
  let hear: (payload: string) => void = () => {}
  const heard = new Promise<string>((resolve) => {
    hear = resolve
  })
  await database.subscribe(name, { message: hear, reset })
  return { heard }
}

/** The promise's value, or a failure if it has not come within a few seconds (so that a failing test fails, not hangs). */
async function soon<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within 5 s`)), 5000)
  })
  try {
    return await Promise.race([promise, late])
  } finally {
    clearTimeout(timer)
  }
}

/** Sends through the pool (another connection than the listening one). */
const notifyThroughPool = (database: Database, name: string, payload: string) => database.db.execute(sql`select pg_notify(${name}, ${payload})`)

/** The next chunk a client sends that holds `text`, after which the proxy stops watching. */
function onceSent(proxy: TcpProxy, text: string, act: (chunk: Buffer) => Buffer = (chunk) => chunk): Promise<void> {
  return new Promise((resolve) => {
    proxy.fromClient = (chunk) => {
      if (!chunk.includes(text)) return chunk
      proxy.fromClient = undefined
      const sent = act(chunk)
      resolve()
      return sent
    }
  })
}

/** The same statement with `listen` misspelt: a syntax error, on a connection that stays up. */
const spoilt = (chunk: Buffer) => Buffer.from(chunk.toString('latin1').replace('listen ', 'lisxen '), 'latin1')

describe.skipIf(!usesPostgres())('the listening connection', () => {
  it('listens to a channel subscribed while it is coming back, even at its very last step', async () => {
    const { proxy, database } = await proxiedDatabase()
    let dropped!: () => void
    const wasDropped = new Promise<void>((resolve) => {
      dropped = resolve
    })
    await listen(database, channel('first'), () => dropped())
    await proxy.down()
    await soon(wasDropped, 'the connection dropped')
    // Subscribed while the connection coming back asks for its backend pid: it used to have
    // listened to every channel by then, and went live without this one.
    const late = channel('late')
    let lateHeard: Promise<{ heard: Promise<string> }> | undefined
    const asked = onceSent(proxy, 'pg_backend_pid', (chunk) => {
      lateHeard = listen(database, late)
      return chunk
    })
    await proxy.up()
    await soon(asked, 'the pid asked for')
    await eventually(() => database.listening())
    await notifyThroughPool(database, late, 'hello')
    expect(await soon((await lateHeard!).heard, 'the late channel heard')).toBe('hello')
  })

  it('reports a LISTEN that fails on the live connection, and listens once it is back', async () => {
    const { proxy, database, errors } = await proxiedDatabase()
    await listen(database, channel('first'))
    const refused = channel('refused')
    const spoiling = onceSent(proxy, `listen ${refused}`, spoilt)
    const { heard } = await listen(database, refused)
    await soon(spoiling, 'the LISTEN sent')
    await eventually(() => errors.some((error) => error.message.includes(refused)))
    await eventually(() => database.listening())
    await notifyThroughPool(database, refused, 'hello')
    expect(await soon(heard, 'the channel heard')).toBe('hello')
  })

  it('reports a LISTEN that fails while it reconnects, and tries again', async () => {
    const { proxy, database, errors } = await proxiedDatabase()
    const name = channel('again')
    const { heard } = await listen(database, name)
    await proxy.down()
    const spoiling = onceSent(proxy, `listen ${name}`, spoilt)
    await proxy.up()
    await soon(spoiling, 'the LISTEN sent')
    await eventually(() => errors.some((error) => error.message.includes(name)))
    await eventually(() => database.listening())
    await notifyThroughPool(database, name, 'hello')
    expect(await soon(heard, 'the channel heard')).toBe('hello')
  })
})
