import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = path.resolve(import.meta.dirname, '../../src')

/** Every module a file of `folder` (under src/) imports, with the file. */
function importsOf(folder: string): { file: string; target: string }[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(path.join(dir, entry.name)) : [path.join(dir, entry.name)]))
  return walk(path.join(SRC, folder)).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)].map((m) => {
      const spec = m[1]!
      return { file: path.relative(SRC, file), target: spec.startsWith('.') ? path.relative(SRC, path.resolve(path.dirname(file), spec)) : spec }
    }),
  )
}

describe('the house: who may import whom', () => {
  it('the platform imports nothing of the domain or of the route groups', () => {
    const upward = importsOf('platform').filter(({ target }) => /^(domain|storefront|iam|backoffice|checkin)\//.test(target))
    expect(upward).toEqual([])
  })

  it('the domain never touches Fastify nor the route groups', () => {
    const http = importsOf('domain').filter(({ target }) => /^(fastify|@fastify\/)/.test(target) || /^(storefront|iam|backoffice|checkin)\//.test(target))
    expect(http).toEqual([])
  })

  it('ticket availability has one owner: only the inventory module writes sold or counts held tickets', () => {
    const owners = importsOf('domain').filter(
      ({ file, target }) => !file.startsWith('domain/inventory/') && /^domain\/inventory\/inventory\.repo\.js$/.test(target),
    )
    // Seating names seats (Seat) and blocks them under the inventory's locks (lockInventories); it neither sells nor counts.
    expect(owners.map(({ file }) => file).filter((file) => !/^domain\/(baskets|orders|seating)\//.test(file))).toEqual([])
    const soldWriters = readdirSync(path.join(SRC, 'domain'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.startsWith('inventory'))
      .filter((file) => /sold:\s*sql|set sold|sold = inv\.sold/.test(readFileSync(path.join(SRC, 'domain', file), 'utf8')))
    expect(soldWriters).toEqual([])
  })

  it('"held" has one definition, the database function tickets_held (and seats_held, seat by seat, with the same predicate): nothing else in src counts held tickets', () => {
    const definition = 'domain/inventory/sql/tickets_held.sql'
    const seatBySeat = 'domain/inventory/sql/seats_held.sql'
    const predicate = 'bi.inventory_id = p_inventory AND bi.held_until > now()'
    expect(readFileSync(path.join(SRC, definition), 'utf8')).toContain(predicate)
    expect(readFileSync(path.join(SRC, seatBySeat), 'utf8')).toContain(predicate)
    // Reading whether an item holds now (its held_until against the clock), or adding up what basket items hold.
    const countsHeld = /held_until\s*[<>]|heldUntil\W{0,2}\s*[<>]|\b(gt|gte|lt|lte)\(\s*\w+\.heldUntil|sum\([^)]*\b(bi|basket_items|basketItems)\.quantity/i
    const counters = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
      .map((file) => file.split(path.sep).join('/'))
      .filter((file) => /\.(ts|sql)$/.test(file) && file !== definition && file !== seatBySeat)
      .filter((file) => countsHeld.test(readFileSync(path.join(SRC, file), 'utf8')))
    expect(counters).toEqual([])
    expect(readFileSync(path.join(SRC, definition), 'utf8')).toMatch(countsHeld)
  })

  it('the sale rule has one owner, the database: no TypeScript computes available, a past date or whether an event sells', () => {
    const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).map((file) => file.split(path.sep).join('/'))
    // capacity - sold (- held): only tickets_available.sql subtracts.
    const computesAvailable = /\b(\w+\.capacity|p_capacity)\s*-\s*(\w+\.)?\w*sold\b|Math\.max\(\s*0\s*,[^)]*capacity/i
    const subtracting = files.filter((file) => /\.(ts|sql)$/.test(file) && computesAvailable.test(readFileSync(path.join(SRC, file), 'utf8')))
    expect(subtracting).toEqual(['domain/inventory/sql/tickets_available.sql'])
    // Whether an inventory is past, or its event on sale, decides a hold: only sale_standing.sql words it, and
    // only inventory_standings.sql compares a date with the seller's today for it.
    const judgesInTs = /(status|eventStatus)\s*!==\s*'published'|status\s*===\s*'published'\s*&&|\.past\b/
    const judgesInSql = /(<>|=)\s*'published'|<\s*seller_today\(/
    const judging = files.filter((file) =>
      file.endsWith('.ts')
        ? judgesInTs.test(readFileSync(path.join(SRC, file), 'utf8'))
        : file.endsWith('.sql') && judgesInSql.test(readFileSync(path.join(SRC, file), 'utf8')),
    )
    expect(judging.sort()).toEqual(['domain/inventory/sql/inventory_standings.sql', 'domain/inventory/sql/sale_standing.sql'])
  })
})
