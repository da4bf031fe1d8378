import type { PDFFont } from 'pdf-lib'
import type { QRCodeRenderersOptions } from 'qrcode'
import { dateTimeFormat, regionDisplayNames } from '../../platform/date-formats.js'
import type { Locale } from '../sellers/seller-settings.js'
import type { EventVenue } from '../catalog/events.table.js'

// The QR and PDF libraries load with the first image drawn: a process that draws none (the
// PostgreSQL server of an API that never prints) does without their few MB.
const qrcode = () => import('qrcode').then((module) => module.default)

/** Error correction M; a quiet zone of 4 modules, as ISO/IEC 18004 asks (readers miss codes drawn tighter). */
const QR = { errorCorrectionLevel: 'M', margin: 4 } as const satisfies QRCodeRenderersOptions

/** The bounds of `?size=` for a PNG, in pixels, and its default. */
export const PNG_SIZE = { min: 64, max: 2048, default: 512 } as const

/** Any text (a ticket's code, a pairing link) as an SVG QR image, drawn as every QR of the product is. */
export const qrSvg = async (code: string) => (await qrcode()).toString(code, { ...QR, type: 'svg' })

/** A PNG of `size` × `size` pixels (quiet zone included): email clients that show no SVG show this. */
export const qrPng = async (code: string, size: number) => (await qrcode()).toBuffer(code, { ...QR, type: 'png', width: size })

/** What one printed ticket shows. */
export type TicketSheet = {
  code: string
  identifier: string
  event: string
  /** The inventory's current date, `YYYY-MM-DD`, its show's start and doors (`HH:MM`, null: not said), and its event's venue. */
  date: string
  time: string | null
  doorsTime: string | null
  venue: EventVenue | null
  inventory: string
  variant: string | null
  holder: string | null
  /** Reserved seating: the seat it sits in (null: unseated). */
  seat: { zone: string; row: string; number: string } | null
}

/** The ticket's own words, in each language buyers are written to: the seat map (seat-map-svg.ts) says the same. */
const WORDS: Record<Locale, { row: string; seat: string; doors: (time: string) => string; title: (orderId: string) => string }> = {
  'pt-BR': { row: 'Fila', seat: 'Assento', doors: (time) => `abertura dos portões às ${time}`, title: (orderId) => `Ingressos, pedido ${orderId}` },
  en: { row: 'Row', seat: 'Seat', doors: (time) => `doors at ${time}`, title: (orderId) => `Tickets, order ${orderId}` },
}

/** How each language writes the hour: "09:05" in Brazil, "9:05 AM" in English. */
const HOUR: Record<Locale, 'numeric' | '2-digit'> = { 'pt-BR': '2-digit', en: 'numeric' }

/** A seat as a ticket prints it: `Plateia · Fila A · Assento 7`, `Plateia · Row A · Seat 7`. */
export const seatLine = (seat: { zone: string; row: string; number: string }, locale: Locale) =>
  `${seat.zone} · ${WORDS[locale].row} ${seat.row} · ${WORDS[locale].seat} ${seat.number}`

/** A date (`YYYY-MM-DD`) as the buyer reads it: "sábado, 12 de dezembro de 2026", "Saturday, December 12, 2026". */
export const dateLine = (date: string, locale: Locale) =>
  dateTimeFormat(locale, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`))

/** A local time of day (`HH:MM`) as the buyer reads it: "20:00", "8:00 PM". */
export const timeText = (time: string, locale: Locale) =>
  dateTimeFormat(locale, { hour: HOUR[locale], minute: '2-digit', timeZone: 'UTC' }).format(new Date(`2000-01-01T${time}:00Z`))

/**
 * When the show is, as the buyer reads it: its date, and its start when said ("sábado, 12 de
 * dezembro de 2026 às 20:00", "Saturday, December 12, 2026 at 8:00 PM"). The times are the
 * seller's clock as the seller wrote them: no time zone is applied.
 */
export const showLine = (date: string, time: string | null, locale: Locale) =>
  time === null
    ? dateLine(date, locale)
    : dateTimeFormat(locale, {
        weekday: 'long',
        day: 'numeric',
        month: 'long',
        year: 'numeric',
        hour: HOUR[locale],
        minute: '2-digit',
        timeZone: 'UTC',
      }).format(new Date(`${date}T${time}:00Z`))

/** When the doors open: "abertura dos portões às 19:00", "doors at 7:00 PM". */
export const doorsLine = (doorsTime: string, locale: Locale) => WORDS[locale].doors(timeText(doorsTime, locale))

/** A country code's name in the language (`BR`: "Brasil", "Brazil"); the code itself when the language has no name for it. */
function countryName(code: string, locale: Locale): string {
  try {
    return regionDisplayNames(locale).of(code) ?? code
  } catch {
    // Not shaped like a region code: as written.
    return code
  }
}

/** Where the venue is, after its name: "Rua Augusta, 123, São Paulo, SP, Brasil" (empty when only its name is said). */
export const venueAddress = (venue: EventVenue, locale: Locale) =>
  [venue.address, venue.city, venue.state, venue.country && countryName(venue.country, locale)].filter(Boolean).join(', ')

/** A venue on one line: "Teatro Demo (Rua Augusta, 123, São Paulo, SP, Brasil)", or its name alone. */
export const venueLine = (venue: EventVenue, locale: Locale) => {
  const address = venueAddress(venue, locale)
  return address ? `${venue.name} (${address})` : venue.name
}

const A5 = { width: 420, height: 595 }
const MARGIN = 36
const QR_SIZE = 260

export type TicketsPdfOptions = { orderId: string; locale: Locale }

/**
 * The QR of `code` as 8-bit grey pixels (0 black, 255 white), quiet zone included, a whole number
 * of pixels per module so that every module is drawn alike: `width` × `width` pixels, `width` at
 * most `atMost`.
 */
async function qrPixels(code: string, atMost: number): Promise<{ pixels: Uint8Array; width: number }> {
  const { modules } = (await qrcode()).create(code, { errorCorrectionLevel: QR.errorCorrectionLevel })
  const cells = modules.size + 2 * QR.margin
  const scale = Math.max(1, Math.floor(atMost / cells))
  const width = cells * scale
  const pixels = new Uint8Array(width * width).fill(255)
  for (let row = 0; row < modules.size; row++) {
    for (let col = 0; col < modules.size; col++) {
      if (!modules.get(row, col)) continue
      for (let y = 0; y < scale; y++) {
        const start = ((row + QR.margin) * scale + y) * width + (col + QR.margin) * scale
        pixels.fill(0, start, start + scale)
      }
    }
  }
  return { pixels, width }
}

/**
 * The tickets as a PDF, one A5 page each: the QR of the signed code (an image of about 600 pixels
 * a side, so that any viewer and printer shows it sharp), then what a person at the gate reads
 * (the event, when its show starts and its doors open, where, the ticket), its words and date in the seller's language (`locale`, also the document's language). Standard
 * fonts (no file to ship): they draw Portuguese and English whole; a character they cannot draw
 * (an emoji, another script) is left out, never printed as `?` (printable).
 *
 * The QR goes in as grey samples made from its modules, compressed once. Drawn from a PNG (made,
 * then decoded and compressed again into RGB and alpha by pdf-lib) a page took 80 ms of the main
 * thread and several MB of buffers: ten two-ticket PDFs at once peaked 55 to 65 MB higher (12 MB
 * now) and took 1.7 s (0.3 s now), 50 tickets took 3.9 s (0.65 s now; docs/performance.md, Memory).
 */
export async function ticketsPdf(sheets: readonly TicketSheet[], { orderId, locale }: TicketsPdfOptions): Promise<Uint8Array> {
  const { degrees, drawImage, PDFDocument, rgb, StandardFonts } = await import('pdf-lib')
  const pdf = await PDFDocument.create()
  pdf.setTitle(WORDS[locale].title(orderId))
  pdf.setLanguage(locale)
  pdf.setProducer('Boxoffice')
  const regular = await pdf.embedFont(StandardFonts.Helvetica)
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold)
  for (const sheet of sheets) {
    const page = pdf.addPage([A5.width, A5.height])
    const { pixels, width } = await qrPixels(sheet.code, 600)
    const image = pdf.context.register(
      pdf.context.flateStream(pixels, { Type: 'XObject', Subtype: 'Image', Width: width, Height: width, ColorSpace: 'DeviceGray', BitsPerComponent: 8 }),
    )
    const top = A5.height - MARGIN
    page.pushOperators(
      ...drawImage(page.node.newXObject('Image', image), {
        x: (A5.width - QR_SIZE) / 2,
        y: top - QR_SIZE,
        width: QR_SIZE,
        height: QR_SIZE,
        rotate: degrees(0),
        xSkew: degrees(0),
        ySkew: degrees(0),
      }),
    )
    let y = top - QR_SIZE - 28
    const line = (text: string, font: PDFFont, size: number) => {
      for (const part of wrap(printable(text, font), font, size, A5.width - 2 * MARGIN)) {
        page.drawText(part, { x: MARGIN, y, size, font, color: rgb(0, 0, 0) })
        y -= size * 1.35
      }
    }
    line(sheet.event, bold, 16)
    line(showLine(sheet.date, sheet.time, locale), regular, 12)
    if (sheet.doorsTime) line(capitalised(doorsLine(sheet.doorsTime, locale)), regular, 12)
    if (sheet.venue) {
      line(sheet.venue.name, bold, 12)
      const address = venueAddress(sheet.venue, locale)
      if (address) line(address, regular, 10)
    }
    line(sheet.variant ? `${sheet.inventory} · ${sheet.variant}` : sheet.inventory, regular, 12)
    if (sheet.seat) line(seatLine(sheet.seat, locale), bold, 14)
    if (sheet.holder) line(sheet.holder, regular, 12)
    y -= 6
    line(sheet.identifier, regular, 9)
  }
  return pdf.save()
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

// Combining marks, dropped from a letter the font has only without them ("ő" prints "o", "ﬁ" "fi").
const MARKS = /\p{M}/gu

/**
 * The text as the font can draw it: any white space as a space; a character it lacks as its
 * plain form without accents when it has that, else left out (an emoji, another script), never
 * replaced by a `?` that the buyer would read as part of the name.
 */
function printable(text: string, font: PDFFont): string {
  const drawable = new Set(font.getCharacterSet())
  const has = (char: string) => drawable.has(char.codePointAt(0)!)
  let out = ''
  for (const char of text.normalize('NFC')) {
    if (/\s/.test(char)) out += ' '
    else if (has(char)) out += char
    else out += [...char.normalize('NFKD').replace(MARKS, '')].filter(has).join('')
  }
  return out
}

/** The text in lines that fit `width` at `size`, broken between words (a word wider than a line is cut). */
function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const lines: string[] = []
  let current = ''
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const next = current ? `${current} ${word}` : word
    if (font.widthOfTextAtSize(next, size) <= width) {
      current = next
      continue
    }
    if (current) lines.push(current)
    current = word
    while (font.widthOfTextAtSize(current, size) > width && current.length > 1) {
      let cut = current.length - 1
      while (cut > 1 && font.widthOfTextAtSize(current.slice(0, cut), size) > width) cut--
      lines.push(current.slice(0, cut))
      current = current.slice(cut)
    }
  }
  if (current) lines.push(current)
  return lines.slice(0, 4)
}
