import { PDFDocument, type PDFFont, rgb, StandardFonts } from 'pdf-lib'
import QRCode, { type QRCodeRenderersOptions } from 'qrcode'

/** Error correction M; a quiet zone of 4 modules, as ISO/IEC 18004 asks (readers miss codes drawn tighter). */
const QR = { errorCorrectionLevel: 'M', margin: 4 } as const satisfies QRCodeRenderersOptions

/** The bounds of `?size=` for a PNG, in pixels, and its default. */
export const PNG_SIZE = { min: 64, max: 2048, default: 512 } as const

/** Any text (a ticket's code, a pairing link) as an SVG QR image, drawn as every QR of the product is. */
export const qrSvg = (code: string) => QRCode.toString(code, { ...QR, type: 'svg' })

/** A PNG of `size` × `size` pixels (quiet zone included): email clients that show no SVG show this. */
export const qrPng = (code: string, size: number) => QRCode.toBuffer(code, { ...QR, type: 'png', width: size })

/** What one printed ticket shows. */
export type TicketSheet = {
  code: string
  identifier: string
  event: string
  /** The inventory's current date, `YYYY-MM-DD`. */
  date: string
  inventory: string
  variant: string | null
  holder: string | null
  /** Reserved seating: the seat it sits in (null: unseated). */
  seat: { zone: string; row: string; number: string } | null
}

/** A seat as a ticket prints it: `Plateia · Row A · Seat 7`. */
export const seatLine = (seat: { zone: string; row: string; number: string }) => `${seat.zone} · Row ${seat.row} · Seat ${seat.number}`

const A5 = { width: 420, height: 595 }
const MARGIN = 36
const QR_SIZE = 260

/**
 * The tickets as a PDF, one A5 page each: the QR of the signed code (drawn from a PNG, so any
 * viewer and printer shows it), then what a person at the gate reads. Standard fonts (no file
 * to ship): a character they cannot draw prints as `?`.
 */
export async function ticketsPdf(sheets: readonly TicketSheet[], title: string): Promise<Uint8Array> {
  const pdf = await PDFDocument.create()
  pdf.setTitle(title)
  pdf.setProducer('Boxoffice')
  const regular = await pdf.embedFont(StandardFonts.Helvetica)
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold)
  for (const sheet of sheets) {
    const page = pdf.addPage([A5.width, A5.height])
    const image = await pdf.embedPng(await qrPng(sheet.code, 600))
    const top = A5.height - MARGIN
    page.drawImage(image, { x: (A5.width - QR_SIZE) / 2, y: top - QR_SIZE, width: QR_SIZE, height: QR_SIZE })
    let y = top - QR_SIZE - 28
    const line = (text: string, font: PDFFont, size: number) => {
      for (const part of wrap(printable(text, font), font, size, A5.width - 2 * MARGIN)) {
        page.drawText(part, { x: MARGIN, y, size, font, color: rgb(0, 0, 0) })
        y -= size * 1.35
      }
    }
    line(sheet.event, bold, 16)
    line(sheet.date, regular, 12)
    line(sheet.variant ? `${sheet.inventory} · ${sheet.variant}` : sheet.inventory, regular, 12)
    if (sheet.seat) line(seatLine(sheet.seat), bold, 14)
    if (sheet.holder) line(sheet.holder, regular, 12)
    y -= 6
    line(sheet.identifier, regular, 9)
  }
  return pdf.save()
}

/** The text with each character the font cannot draw as `?`. */
function printable(text: string, font: PDFFont): string {
  const drawable = new Set(font.getCharacterSet())
  return [...text].map((char) => (drawable.has(char.codePointAt(0)!) ? char : '?')).join('')
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
