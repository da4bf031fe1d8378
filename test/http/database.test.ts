import { sql } from 'drizzle-orm'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.js'
import { openDatabase, type Database, type Db } from '../../src/platform/db/database.js'
import { sqlState } from '../../src/platform/db/errors.js'
import { inOrder, sqlStatement, transactionEndingWith, type LastStatement } from '../../src/platform/db/transaction-ending-with.js'
import { testConfig } from '../build-app.js'
import { resetDatabase, testDatabase, testDatabaseUrl, usesPostgres } from '../support/database.js'
import { freePort } from '../support/smtp-sink.js'
import { TcpProxy } from '../support/tcp-proxy.js'

let database: Database

beforeAll(async () => {
  database = await testDatabase()
  await resetDatabase(database)
  await database.db.execute(sql`create table if not exists lock_probe (id int primary key, capacity int not null, sold int not null)`)
})
afterAll(async () => {
  await database.db.execute(sql`drop table if exists lock_probe`)
})

describe(`transactions and row locks (${usesPostgres() ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('sells exactly the capacity when 200 concurrent transactions compete for 50 seats', async () => {
    await database.db.execute(sql`insert into lock_probe values (1, 50, 0)`)
    const attempts = Array.from({ length: 200 }, () =>
      database.db.transaction(async (tx) => {
        const { rows } = await tx.execute<{ capacity: number; sold: number }>(sql`select capacity, sold from lock_probe where id = 1 for update`)
        const row = rows[0]!
        if (row.sold + 1 > row.capacity) return false
        await tx.execute(sql`update lock_probe set sold = sold + 1 where id = 1`)
        return true
      }),
    )
    const results = await Promise.all(attempts)
    expect(results.filter(Boolean)).toHaveLength(50)
    const { rows } = await database.db.execute<{ sold: number }>(sql`select sold from lock_probe where id = 1`)
    expect(rows[0]?.sold).toBe(50)
  })

  it('rolls back every statement of a failed transaction', async () => {
    await database.db.execute(sql`insert into lock_probe values (2, 10, 0)`)
    await expect(
      database.db.transaction(async (tx) => {
        await tx.execute(sql`update lock_probe set sold = 5 where id = 2`)
        throw new Error('abort')
      }),
    ).rejects.toThrow('abort')
    const { rows } = await database.db.execute<{ sold: number }>(sql`select sold from lock_probe where id = 2`)
    expect(rows[0]?.sold).toBe(0)
  })
})

describe(`a transaction ending with a statement sent with its COMMIT (${usesPostgres() ? 'PostgreSQL' : 'PGlite'})`, () => {
  // The last statement sells one seat of lock_probe row `id`, or raises (division by zero) when none is left.
  const sellOne = (id: number): LastStatement<number> => ({
    query: sql`with sale as (update lock_probe set sold = sold + 1 where id = ${id} returning sold, capacity)
               select sold / (case when sold <= capacity then 1 else 0 end) as sold from sale`,
    read: (rows) => Number(rows[0]!.sold),
    explain: (error) => (sqlState(error) === '22012' ? new Error('sold out') : error),
  })
  const soldOf = async (id: number) => (await database.db.execute<{ sold: number }>(sql`select sold from lock_probe where id = ${id}`)).rows[0]!.sold

  it('commits the work with the last statement and answers its rows', async () => {
    await database.db.execute(sql`insert into lock_probe values (10, 5, 0)`)
    const { result, last } = await transactionEndingWith(database.db, async (tx) => {
      await tx.execute(sql`insert into lock_probe values (11, 0, 0)`)
      return { result: 'worked', last: sellOne(10) }
    })
    expect([result, last]).toEqual(['worked', 1])
    expect(await soldOf(10)).toBe(1)
    expect(await soldOf(11)).toBe(0)
  })

  it('rolls the work back when the last statement refuses, with the error it explains, and the connection serves on', async () => {
    await database.db.execute(sql`insert into lock_probe values (12, 0, 0)`)
    await expect(
      transactionEndingWith(database.db, async (tx) => {
        await tx.execute(sql`insert into lock_probe values (13, 0, 0)`)
        return { result: null, last: sellOne(12) }
      }),
    ).rejects.toThrow('sold out')
    expect((await database.db.execute(sql`select 1 from lock_probe where id = 13`)).rows).toHaveLength(0)
    await expect(
      transactionEndingWith(database.db, async (tx) => {
        await tx.execute(sql`insert into lock_probe values (14, 0, 0)`)
        throw new Error('abort')
      }),
    ).rejects.toThrow('abort')
    expect((await database.db.execute(sql`select 1 from lock_probe where id = 14`)).rows).toHaveLength(0)
    const { result } = await transactionEndingWith(database.db, async () => ({ result: 'still serving' }))
    expect(result).toBe('still serving')
  })

  it('runs the statements sent after the last one in the same transaction, answering them; one failing rolls everything back', async () => {
    await database.db.execute(sql`insert into lock_probe values (50, 5, 0)`)
    const { last, after } = await transactionEndingWith(database.db, (tx) => ({
      result: null,
      last: sellOne(50),
      after: [sqlStatement(tx, sql`select sold from lock_probe where id = 50`), sqlStatement(tx, sql`insert into lock_probe values (51, 0, 0)`)],
    }))
    expect(last).toBe(1)
    // The first one after saw the sale it follows.
    expect((after[0] as { rows: { sold: number }[] }).rows).toEqual([{ sold: 1 }])
    expect(await soldOf(51)).toBe(0)
    await expect(
      transactionEndingWith(database.db, (tx) => ({
        result: null,
        last: sellOne(50),
        after: [sqlStatement(tx, sql`insert into lock_probe values (51, 0, 0)`)],
      })),
    ).rejects.toSatisfy((error: unknown) => sqlState(error) === '23505')
    expect(await soldOf(50)).toBe(1)
  })

  it('rolls everything back when a statement sent alongside the last one fails, and throws its error (with or without a last statement)', async () => {
    await database.db.execute(sql`insert into lock_probe values (40, 5, 0)`)
    await expect(
      transactionEndingWith(database.db, async (tx) => {
        await tx.execute(sql`insert into lock_probe values (41, 0, 0)`)
        return { result: null, last: sellOne(40), alongside: [sqlStatement(tx, sql`insert into lock_probe values (41, 0, 0)`)] }
      }),
    ).rejects.toSatisfy((error: unknown) => sqlState(error) === '23505')
    await expect(
      transactionEndingWith(database.db, async (tx) => {
        await tx.execute(sql`insert into lock_probe values (42, 0, 0)`)
        return { result: null, alongside: [sqlStatement(tx, sql`select 1 / 0`)] }
      }),
    ).rejects.toSatisfy((error: unknown) => sqlState(error) === '22012')
    expect(await soldOf(40)).toBe(0)
    expect((await database.db.execute(sql`select 1 from lock_probe where id in (41, 42)`)).rows).toHaveLength(0)
  })

  it('sells exactly the capacity, each sale with its work, when 100 such transactions race for 30 seats', async () => {
    await database.db.execute(sql`insert into lock_probe values (15, 30, 0)`)
    const outcomes = await Promise.allSettled(
      Array.from({ length: 100 }, (_, n) =>
        transactionEndingWith(database.db, async (tx) => {
          await tx.execute(sql`insert into lock_probe values (${1000 + n}, 0, 0)`)
          return { result: n, last: sellOne(15) }
        }),
      ),
    )
    const sold = outcomes.filter((o) => o.status === 'fulfilled')
    expect(sold).toHaveLength(30)
    for (const o of outcomes) if (o.status === 'rejected') expect(String(o.reason)).toContain('sold out')
    expect(await soldOf(15)).toBe(30)
    const written = await database.db.execute<{ n: number }>(sql`select count(*)::int as n from lock_probe where id >= 1000`)
    expect(written.rows[0]!.n).toBe(30)
  })

  it.runIf(usesPostgres())("releases the last statement's locks without waiting for this process to read its answer", async () => {
    await database.db.execute(sql`insert into lock_probe values (16, 5, 0)`)
    const waiter = new pg.Client({ connectionString: await testDatabaseUrl() })
    await waiter.connect()
    try {
      let answerReadAt = 0
      let waiting: Promise<pg.QueryResult<{ granted_at: Date }>> | undefined
      await transactionEndingWith(database.db, async (tx) => {
        await tx.execute(sql`select 1 from lock_probe where id = 16 for update`)
        // Another session queues for the row this transaction holds.
        waiting = waiter.query<{ granted_at: Date }>(`update lock_probe set sold = sold + 1 where id = 16 returning clock_timestamp() as granted_at`)
        await new Promise((resolve) => setTimeout(resolve, 50))
        return {
          result: null,
          last: {
            ...sellOne(16),
            read: (rows) => {
              // The event loop is busy for 400 ms as soon as the answer is read.
              answerReadAt = Date.now()
              while (Date.now() - answerReadAt < 400);
              return Number(rows[0]!.sold)
            },
          },
        }
      })
      const granted = (await waiting!).rows[0]!.granted_at.getTime()
      expect(answerReadAt).toBeGreaterThan(0)
      // Granted by the COMMIT that went out with the last statement, not after the busy loop.
      expect(granted).toBeLessThan(answerReadAt + 200)
    } finally {
      await waiter.end()
    }
  })

  it('runs a work whose result is a promise of its statements: they are answered, then the last one runs; sells exactly the capacity under a race of 100', async () => {
    await database.db.execute(sql`insert into lock_probe values (60, 30, 0)`)
    const outcomes = await Promise.allSettled(
      Array.from({ length: 100 }, (_, n) =>
        transactionEndingWith(database.db, (tx) => ({
          result: inOrder(tx, tx.execute(sql`insert into lock_probe values (${2000 + n}, 0, 0)`), tx.execute(sql`select ${n}::int as n`)),
          last: sellOne(60),
        })),
      ),
    )
    const sold = outcomes.filter((o) => o.status === 'fulfilled')
    expect(sold).toHaveLength(30)
    for (const o of outcomes) if (o.status === 'rejected') expect(String(o.reason)).toContain('sold out')
    // Each answers its own statements' rows, and the seat it sold.
    outcomes.forEach((o, n) => {
      if (o.status === 'fulfilled') expect([Number(o.value.result[1].rows[0]!.n), o.value.last! >= 1 && o.value.last! <= 30]).toEqual([n, true])
    })
    expect(new Set(sold.map((o) => o.value.last)).size).toBe(30)
    expect(await soldOf(60)).toBe(30)
    const written = await database.db.execute<{ n: number }>(sql`select count(*)::int as n from lock_probe where id >= 2000 and id < 3000`)
    expect(written.rows[0]!.n).toBe(30)
  })

  it('throws the first failure of a work whose result is a promise of its statements, and neither its statements nor the last one stay', async () => {
    await database.db.execute(sql`insert into lock_probe values (61, 5, 0)`)
    await expect(
      transactionEndingWith(database.db, (tx) => ({
        result: inOrder(tx, tx.execute(sql`insert into lock_probe values (62, 0, 0)`), tx.execute(sql`select 1 / 0`)),
        last: sellOne(61),
      })),
    ).rejects.toSatisfy((error: unknown) => sqlState(error) === '22012')
    expect(await soldOf(61)).toBe(0)
    expect((await database.db.execute(sql`select 1 from lock_probe where id = 62`)).rows).toHaveLength(0)
  })

  it('rolls back, with the error, a work whose result rejects for a reason other than the database (the last statement sent or not)', async () => {
    await database.db.execute(sql`insert into lock_probe values (65, 5, 0)`)
    const failing = (tx: Db) =>
      inOrder(tx, tx.execute(sql`insert into lock_probe values (66, 0, 0)`)).then(() => {
        throw new Error('not the database')
      })
    await expect(transactionEndingWith(database.db, (tx) => ({ result: failing(tx), last: sellOne(65) }))).rejects.toThrow('not the database')
    await expect(
      transactionEndingWith(database.db, (tx) => ({ result: failing(tx), alongside: [sqlStatement(tx, sql`update lock_probe set sold = 9 where id = 65`)] })),
    ).rejects.toThrow('not the database')
    expect(await soldOf(65)).toBe(0)
    expect((await database.db.execute(sql`select 1 from lock_probe where id = 66`)).rows).toHaveLength(0)
    const { result } = await transactionEndingWith(database.db, async () => ({ result: 'still serving' }))
    expect(result).toBe('still serving')
  })

  it.runIf(usesPostgres())('throws when the COMMIT is answered ROLLBACK though the work swallowed the failure that aborted it', async () => {
    await database.db.execute(sql`insert into lock_probe values (67, 5, 0)`)
    await expect(
      transactionEndingWith(database.db, async (tx) => {
        await tx.execute(sql`select 1 / 0`).catch(() => undefined)
        return { result: 'swallowed' }
      }),
    ).rejects.toThrow(/ROLLBACK/)
  })

  it.runIf(usesPostgres())('sends the work with its BEGIN, then the last statement with the COMMIT: two writes', async () => {
    await database.db.execute(sql`insert into lock_probe values (63, 5, 0)`)
    const pool = (database.db as unknown as { $client: pg.Pool }).$client
    type Stream = { _write: (...args: unknown[]) => unknown; _writev: (...args: unknown[]) => unknown }
    let writes = 0
    let restore = () => {}
    // The socket of the connection the transaction takes: its writes are counted, not changed.
    pool.once('acquire', (client) => {
      const stream = (client as unknown as { connection: { stream: Stream } }).connection.stream
      const { _write, _writev } = stream
      const counted =
        (write: Stream['_write']) =>
        (...args: unknown[]) => {
          writes++
          return write.apply(stream, args)
        }
      stream._write = counted(_write)
      stream._writev = counted(_writev)
      restore = () => Object.assign(stream, { _write, _writev })
    })
    try {
      const { last } = await transactionEndingWith(database.db, (tx) => ({
        result: inOrder(tx, tx.execute(sql`insert into lock_probe values (64, 0, 0)`), tx.execute(sql`select 1`)),
        last: sellOne(63),
      }))
      expect(last).toBe(1)
      expect(writes).toBe(2)
    } finally {
      restore()
    }
  })

  it('runs statements sent together in order, and none after a failure', async () => {
    await database.db.execute(sql`insert into lock_probe values (17, 5, 0)`)
    const { result } = await transactionEndingWith(database.db, async (tx) => ({
      result: await inOrder(tx, tx.execute(sql`update lock_probe set sold = 2 where id = 17`), tx.execute(sql`select sold from lock_probe where id = 17`)),
    }))
    expect(Number(result[1].rows[0]!.sold)).toBe(2)
    await expect(
      transactionEndingWith(database.db, async (tx) => ({
        result: await inOrder(
          tx,
          tx.execute(sql`update lock_probe set sold = 1 / 0 where id = 17`),
          tx.execute(sql`update lock_probe set sold = 4 where id = 17`),
        ),
      })),
    ).rejects.toThrow()
    expect(await soldOf(17)).toBe(2)
  })
})

describe('a database that cannot be reached', () => {
  it('answers health with 503 quickly instead of hanging', async () => {
    const port = await freePort()
    const unreachable = await openDatabase({ url: `postgres://postgres@127.0.0.1:${port}/none`, connectTimeoutMs: 500 })
    const app = await buildApp({ config: testConfig(), database: unreachable, startWorkers: false })
    try {
      const started = Date.now()
      const res = await app.inject({ method: 'GET', url: '/iam/v1/health' })
      expect(res.statusCode).toBe(503)
      expect(res.json()).toMatchObject({ code: 'service_unavailable', status: 'unavailable', checks: { database: 'down' } })
      expect(Date.now() - started).toBeLessThan(3000)
    } finally {
      await app.close()
      await unreachable.close()
    }
  })
})

/** The test database's URL through a TCP proxy that the test can cut (`proxy.down()`) and restore. */
async function throughProxy() {
  const target = new URL(await testDatabaseUrl())
  const proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432))
  const viaProxy = new URL(target)
  viaProxy.port = String(proxy.port)
  return { proxy, url: viaProxy.toString() }
}

describe.skipIf(!usesPostgres())('PostgreSQL going away and coming back', () => {
  it('answers 503 while it is down and recovers by itself, without a restart', async () => {
    const { proxy, url } = await throughProxy()
    const proxied = await openDatabase({ url, connectTimeoutMs: 500, statementTimeoutMs: 1000 })
    const app = await buildApp({ config: testConfig(), database: proxied, startWorkers: false })
    try {
      expect((await app.inject({ method: 'GET', url: '/iam/v1/health' })).statusCode).toBe(200)
      await proxy.down()
      const started = Date.now()
      const down = await Promise.all(Array.from({ length: 5 }, () => app.inject({ method: 'GET', url: '/iam/v1/health' })))
      expect(down.map((r) => r.statusCode)).toEqual([503, 503, 503, 503, 503])
      expect(Date.now() - started).toBeLessThan(3000)
      await proxy.up()
      let recovered = false
      for (let i = 0; i < 50 && !recovered; i++) {
        recovered = (await app.inject({ method: 'GET', url: '/iam/v1/health' })).statusCode === 200
        if (!recovered) await new Promise((r) => setTimeout(r, 100))
      }
      expect(recovered).toBe(true)
    } finally {
      await app.close()
      await proxied.close()
      await proxy.down()
    }
  })
})

describe.skipIf(!usesPostgres())('a connection lost in the middle of a transaction', () => {
  it('fails the transaction with the error and leaves no statement of it an unhandled rejection', async () => {
    const { proxy, url } = await throughProxy()
    const own = await openDatabase({ url, poolMax: 1, connectTimeoutMs: 500 })
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      await own.ping() // the pool's one connection is open and idle
      // BEGIN and a statement go out before any answer: the connection is cut before BEGIN is
      // answered, so both fail, and so does the ROLLBACK.
      const last: LastStatement<number> = { query: { sql: 'select $1::int as n', params: [1] }, read: (rows) => Number(rows[0]!.n) }
      const ending = transactionEndingWith(own.db, (tx) => ({ result: sqlStatement(tx, sql`select ${2}::int`).execute(), last }))
      await proxy.down()
      await expect(ending).rejects.toThrow()
      // Unhandled rejections are reported once the microtasks of the turn that rejected are done.
      await new Promise((resolve) => setImmediate(resolve))
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
      await own.close()
      await proxy.down()
    }
  })
})

describe.skipIf(!usesPostgres())('prepared statements on PostgreSQL', () => {
  const preparedOn = async (db: Database) =>
    (await db.db.execute<{ name: string; statement: string }>(sql`select name, statement from pg_prepared_statements where ${1} = 1`)).rows

  it('sends parameterised statements as named prepared statements, once per connection', async () => {
    const own = await openDatabase({ url: await testDatabaseUrl(), poolMax: 1 })
    try {
      for (let n = 0; n < 3; n++) await own.db.execute(sql`select ${n}::int as n, 'probe-named' as tag`)
      const named = (await preparedOn(own)).filter((row) => row.statement.includes('probe-named'))
      expect(named).toHaveLength(1)
      expect(named[0]!.name).toMatch(/^s_[A-Za-z0-9_-]{24}$/)
      // Statements without parameters (BEGIN, COMMIT) go unnamed.
      await own.db.transaction(async (tx) => tx.execute(sql`select 1`))
      expect((await preparedOn(own)).some((row) => /^\s*(begin|commit)/i.test(row.statement))).toBe(false)
    } finally {
      await own.close()
    }
  })

  it('names the statement a transaction ends with too (the one sent with the COMMIT)', async () => {
    const own = await openDatabase({ url: await testDatabaseUrl(), poolMax: 1 })
    try {
      const last: LastStatement<number> = { query: { sql: "select $1::int as n, 'probe-last' as tag", params: [7] }, read: (rows) => Number(rows[0]!.n) }
      for (let n = 0; n < 2; n++) {
        const ended = await transactionEndingWith(own.db, () => ({ result: n, last }))
        expect(ended).toEqual({ result: n, last: 7, after: [] })
      }
      const named = (await preparedOn(own)).filter((row) => row.statement.includes('probe-last'))
      expect(named.map((row) => row.name)).toEqual([expect.stringMatching(/^s_[A-Za-z0-9_-]{24}$/)])
    } finally {
      await own.close()
    }
  })

  it('sends them unnamed with preparedStatements: false (DB_PREPARED_STATEMENTS=false)', async () => {
    const own = await openDatabase({ url: await testDatabaseUrl(), poolMax: 1, preparedStatements: false })
    try {
      await own.db.execute(sql`select ${1}::int as n, 'probe-unnamed' as tag`)
      // Not even a statement the ORM prepares by name.
      await own.db
        .select({ n: sql<number>`${sql.placeholder('n')}::int`, tag: sql`'probe-orm'` })
        .from(sql`(select 1) as one`)
        .prepare('probe_orm')
        .execute({ n: 2 })
      expect((await preparedOn(own)).filter((row) => /probe-unnamed|probe-orm/.test(row.statement))).toEqual([])
    } finally {
      await own.close()
    }
  })
})
