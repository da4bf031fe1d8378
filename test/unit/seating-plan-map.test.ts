import { describe, expect, it } from 'vitest'
import { gridPlan } from '../../src/domain/seating/grid-plan.js'
import { planSeats } from '../../src/domain/seating/plan-seats.js'
import { drawSeatMap, type MapSeat } from '../../src/domain/seating/seat-map-svg.js'
import { elementsOf, parseXml } from '../support/xml-document.js'

const seat = (id: string, x: number, status: MapSeat['status'] = 'free', extra: Partial<MapSeat> = {}): MapSeat => ({
  id,
  x,
  y: 50,
  category: 'A',
  zone: 'Z',
  row: '1',
  number: id,
  status,
  ...extra,
})
const categories = [{ name: 'A', color: '#112233' }]

/** The attributes of the circle of one seat. */
const circleOf = (svg: string, id: string) => svg.match(new RegExp(`<circle id="seat-${id}"[^>]*>`))?.[0] ?? ''

describe('drawSeatMap', () => {
  it('draws a standalone SVG with a viewBox from the plan size, the legend below it', () => {
    const svg = drawSeatMap({ seats: [seat('1', 40)], categories, size: { width: 300, height: 200 } })
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 300 260"/)
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true)
    // The legend: the categories, then taken seats; blocked only where a seat is blocked.
    expect(svg).toContain('>Taken</text>')
    expect(svg).not.toContain('>Blocked</text>')
    expect(drawSeatMap({ seats: [seat('1', 40, 'blocked')], categories })).toContain('>Blocked</text>')
    // In the seller's language.
    const brazilian = drawSeatMap({ seats: [seat('1', 40, 'blocked')], categories, locale: 'pt-BR' })
    expect(brazilian).toContain('>Ocupado</text>')
    expect(brazilian).toContain('>Bloqueado</text>')
    expect(brazilian).toContain('<title>Z, fila 1, assento 1</title>')
  })

  it('draws a viewBox around the seats when the plan has no size', () => {
    const svg = drawSeatMap({ seats: [seat('1', 100), seat('2', 200, 'free', { y: 150 })], categories: [] })
    expect(svg).toContain('viewBox="60 10 180 216"')
  })

  it('colours free seats by category, taken ones grey, blocked ones dark and crossed', () => {
    const svg = drawSeatMap({ seats: [seat('1', 40), seat('2', 70, 'taken'), seat('3', 100, 'blocked')], categories })
    expect(circleOf(svg, '1')).toContain('data-status="free"')
    expect(circleOf(svg, '1')).toContain('fill="#112233"')
    expect(circleOf(svg, '2')).toContain('data-status="taken"')
    expect(circleOf(svg, '2')).toContain('fill="#b8b8b8"')
    expect(circleOf(svg, '3')).toContain('data-status="blocked"')
    expect(circleOf(svg, '3')).toContain('fill="#3a3a3a"')
    expect(svg.match(/<path d="M/g)).toHaveLength(1)
    expect(circleOf(svg, '1')).toContain('data-seat="1"')
  })

  it('rings highlighted seats', () => {
    const svg = drawSeatMap({ seats: [seat('1', 40), seat('2', 70)], categories, highlight: new Set(['2']) })
    expect(svg.match(/class="highlight"/g)).toHaveLength(1)
    expect(svg).toContain('<circle class="highlight" data-seat="2"')
  })

  it('labels each row once, left of its first seat, and lists the categories in a legend', () => {
    const svg = drawSeatMap({
      seats: [seat('1', 70), seat('2', 40), seat('3', 40, 'free', { row: '2', y: 85 })],
      categories: [...categories, { name: 'Balcony', color: '#445566' }],
    })
    expect(
      svg
        .match(/<g class="rows"[^>]*>([\s\S]*?)<\/g>/)![1]!
        .trim()
        .split('\n'),
    ).toEqual(['<text x="24" y="50">1</text>', '<text x="24" y="85">2</text>'])
    expect(svg).toMatch(/<g class="legend"[\s\S]*fill="#112233"[\s\S]*>A<\/text>[\s\S]*fill="#445566"[\s\S]*>Balcony<\/text>/)
  })

  it("escapes the plan's names: a seller's <script> stays text", () => {
    const svg = drawSeatMap({
      seats: [seat('x"><script>alert(1)</script>', 40, 'free', { row: '<script>alert(2)</script>', zone: 'A & B', category: '<b>' })],
      categories: [{ name: '<script>alert(3)</script>', color: '"/><script>alert(4)</script>' }],
      highlight: new Set(['x"><script>alert(1)</script>']),
    })
    expect(svg).not.toContain('<script')
    expect(svg).toContain('&lt;script&gt;alert(2)&lt;/script&gt;')
    expect(svg).toContain('data-seat="x&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"')
    expect(svg).toContain('A &amp; B')
    expect(svg).not.toMatch(/&(?!amp;|lt;|gt;|quot;|apos;)/)
  })

  it('is well-formed XML whatever the texts hold: what XML forbids is replaced, a control by a space', () => {
    // Every character XML 1.0 forbids but NUL (no database text holds one), and lone surrogates.
    const forbidden = `${String.fromCharCode(...[...Array(32).keys()].filter((c) => c > 0 && c !== 9 && c !== 10 && c !== 13))}\uFFFE\uFFFF\uDC00\uD800`
    const svg = drawSeatMap({
      seats: [seat(`g${forbidden}`, 40, 'free', { row: `A${forbidden}`, zone: `Z\u000B1`, number: `1${forbidden}`, category: `C${forbidden}` })],
      categories: [{ name: `C${forbidden}`, color: `#112233${forbidden}` }],
      highlight: new Set([`g${forbidden}`]),
      locale: 'pt-BR',
    })
    const { errors, root } = parseXml(svg)
    expect(errors).toEqual([])
    expect(root!.attributes['xml:lang']).toBe('pt-BR')
    const title = [...elementsOf(root!)].find((element) => element.name === 'title')!
    expect(title.text).toBe(`Z 1, fila A${' '.repeat(28)}\uFFFD\uFFFD\uFFFD\uFFFD, assento 1${' '.repeat(28)}\uFFFD\uFFFD\uFFFD\uFFFD`)
  })

  it('draws a plan of 50,000 seats', () => {
    const plan = gridPlan({ rows: 200, seatsPerRow: 250, aisleAfter: 125, categories: [{ name: 'Front', rows: [0, 1, 2] }, { name: 'Back' }] })
    const { seats, categories: cats } = planSeats(plan)
    const statuses: MapSeat['status'][] = ['free', 'free', 'taken', 'free', 'blocked']
    const mapSeats = seats.map((s, i) => ({
      id: s.seatId,
      x: s.x,
      y: s.y,
      category: s.category,
      zone: s.zone,
      row: s.row,
      number: s.number,
      status: statuses[i % 5]!,
    }))
    const started = performance.now()
    const svg = drawSeatMap({ seats: mapSeats, categories: cats, size: plan.size, highlight: new Set(['Main-1-1', 'Main-1-2']) })
    const ms = performance.now() - started
    console.info(`drawSeatMap: 50,000 seats in ${ms.toFixed(0)} ms, ${(svg.length / 1e6).toFixed(1)} MB`)
    expect(svg.match(/<circle id="seat-/g)).toHaveLength(50_000)
    expect(svg.match(/class="highlight"/g)).toHaveLength(2)
  })
})
