import { inflateSync } from 'node:zlib'
import { PDFName, PDFRawStream, type PDFDocument } from 'pdf-lib'

/** The text a PDF's pages draw (pdf-lib writes each string as hex before `Tj`), one string a line. */
export function pdfText(pdf: PDFDocument): string {
  return pdf.context
    .enumerateIndirectObjects()
    .flatMap(([, object]) => {
      if (!(object instanceof PDFRawStream) || object.dict.lookup(PDFName.of('Subtype'))) return []
      const content = String(object.dict.lookup(PDFName.of('Filter'))) === '/FlateDecode' ? inflateSync(object.contents) : Buffer.from(object.contents)
      return [...content.toString('latin1').matchAll(/<([0-9A-Fa-f]*)>\s*Tj/g)].map((m) => Buffer.from(m[1]!, 'hex').toString('latin1'))
    })
    .join('\n')
}
