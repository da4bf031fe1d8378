import type { Locale } from '../sellers/seller-settings.js'
import { escapeXml } from './xml-text.js'

/** A seat as the map draws it: where it stands, what it is, and whether it can be bought. */
export type MapSeat = {
  id: string
  x: number
  y: number
  category: string
  zone: string
  row: string
  number: string
  status: 'free' | 'taken' | 'blocked'
}

export type SeatMapInput = {
  seats: readonly MapSeat[]
  categories: readonly { name: string; color: string }[]
  /** The plan's drawing size; absent: the bounds of the seats. */
  size?: { width: number; height: number } | undefined
  /** Seat ids drawn with a ring (e.g. the seats a basket holds). */
  highlight?: ReadonlySet<string>
  /** The language of the legend and the seats' titles (the seller's; default English). */
  locale?: Locale | undefined
}

const RADIUS = 10
const PAD = 40
const LEGEND_ROW = 24
const TAKEN = '#b8b8b8'
const BLOCKED = '#3a3a3a'
const UNKNOWN_CATEGORY = '#888888'

const n = (value: number) => String(Math.round(value * 100) / 100)

/** The map's own words, in each language buyers are written to. */
const WORDS: Record<Locale, { taken: string; blocked: string; row: string; seat: string }> = {
  'pt-BR': { taken: 'Ocupado', blocked: 'Bloqueado', row: 'fila', seat: 'assento' },
  en: { taken: 'Taken', blocked: 'Blocked', row: 'row', seat: 'seat' },
}

/**
 * The plan drawn as a standalone SVG document: each seat a circle (`id="seat-<id>"`,
 * `data-seat`, `data-status`), free seats in their category's colour, taken ones grey, blocked
 * ones dark and crossed, highlighted ones ringed; each row labelled left of its first seat; a
 * legend of the categories (and of taken and blocked seats) below the plan. Its own words are in
 * one language, named by `xml:lang`. Every text and attribute goes through escapeXml: the document
 * is well-formed XML whatever the plan's texts hold. Pure.
 */
export function drawSeatMap({ seats, categories, size, highlight, locale = 'en' }: SeatMapInput): string {
  const words = WORDS[locale]
  let minX = 0
  let minY = 0
  let width: number
  let height: number
  if (size) {
    width = size.width
    height = size.height
  } else if (seats.length === 0) {
    width = 2 * PAD
    height = 2 * PAD
  } else {
    let maxX = -Infinity
    let maxY = -Infinity
    minX = Infinity
    minY = Infinity
    for (const s of seats) {
      if (s.x < minX) minX = s.x
      if (s.y < minY) minY = s.y
      if (s.x > maxX) maxX = s.x
      if (s.y > maxY) maxY = s.y
    }
    minX -= PAD
    minY -= PAD
    width = maxX - minX + PAD
    height = maxY - minY + PAD
  }
  const legendTop = minY + height
  // The categories' colours, then the states a seat can be in besides free (blocked only when a seat is).
  const legend = [
    ...categories.map((c) => ({ name: c.name, color: c.color })),
    { name: words.taken, color: TAKEN },
    ...(seats.some((seat) => seat.status === 'blocked') ? [{ name: words.blocked, color: BLOCKED }] : []),
  ]
  const fullHeight = height + LEGEND_ROW * legend.length + LEGEND_ROW / 2
  const colors = new Map(categories.map((c) => [c.name, c.color]))

  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${n(minX)} ${n(minY)} ${n(width)} ${n(fullHeight)}" width="${n(width)}" height="${n(fullHeight)}" font-family="sans-serif" font-size="12" xml:lang="${locale}">`,
    '<g class="seats">',
  ]
  // Each row's leftmost seat, for its label.
  const rowStarts = new Map<string, MapSeat>()
  for (const s of seats) {
    const key = `${s.zone}\u0000${s.row}`
    const first = rowStarts.get(key)
    if (!first || s.x < first.x) rowStarts.set(key, s)
    const id = escapeXml(s.id)
    const fill = s.status === 'free' ? escapeXml(colors.get(s.category) ?? UNKNOWN_CATEGORY) : s.status === 'taken' ? TAKEN : BLOCKED
    const label = escapeXml(`${s.zone ? `${s.zone}, ` : ''}${words.row} ${s.row}, ${words.seat} ${s.number}`)
    out.push(
      `<circle id="seat-${id}" data-seat="${id}" data-status="${s.status}" cx="${n(s.x)}" cy="${n(s.y)}" r="${RADIUS}" fill="${fill}"><title>${label}</title></circle>`,
    )
    if (s.status === 'blocked') {
      const d = RADIUS * 0.6
      out.push(
        `<path d="M${n(s.x - d)} ${n(s.y - d)}L${n(s.x + d)} ${n(s.y + d)}M${n(s.x + d)} ${n(s.y - d)}L${n(s.x - d)} ${n(s.y + d)}" stroke="#ffffff" stroke-width="2"/>`,
      )
    }
    if (highlight?.has(s.id)) {
      out.push(`<circle class="highlight" data-seat="${id}" cx="${n(s.x)}" cy="${n(s.y)}" r="${RADIUS + 4}" fill="none" stroke="#000000" stroke-width="3"/>`)
    }
  }
  out.push('</g>', '<g class="rows" text-anchor="end" dominant-baseline="middle" fill="#555555">')
  for (const s of rowStarts.values()) out.push(`<text x="${n(s.x - RADIUS - 6)}" y="${n(s.y)}">${escapeXml(s.row)}</text>`)
  out.push('</g>', '<g class="legend" dominant-baseline="middle">')
  legend.forEach((c, i) => {
    const y = legendTop + LEGEND_ROW * (i + 0.5)
    out.push(
      `<circle cx="${n(minX + PAD / 2)}" cy="${n(y)}" r="${RADIUS * 0.8}" fill="${escapeXml(c.color)}"/>`,
      `<text x="${n(minX + PAD / 2 + 2 * RADIUS)}" y="${n(y)}">${escapeXml(c.name)}</text>`,
    )
  })
  out.push('</g>', '</svg>')
  return out.join('\n')
}
