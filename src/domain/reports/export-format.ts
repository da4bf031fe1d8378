import type { ExportFormat } from './exports.table.js'

/**
 * How a column's cells are written (docs/exports.md): `text` is formula-safe in CSV, `money` is
 * integer centavos (reais with a dot in `csv`, a comma in `csv_br`, centavos in `json`), `int`
 * and `bool` as they are. A null is an empty cell (`null` in JSON).
 */
export type ColumnKind = 'text' | 'money' | 'int' | 'bool'
export type Column = { key: string; kind: ColumnKind }
export type Cell = string | number | boolean | null

/** What a spreadsheet would run as a formula: a text cell starting so gets a leading `'`. */
const FORMULA_START = /^[=+\-@\t\r]/

export const formulaSafe = (text: string): string => (FORMULA_START.test(text) ? `'${text}` : text)

/** Centavos as reais, `decimal` between them, no thousands separators: `-12345` → `-123.45`. */
export function reais(centavos: number, decimal: '.' | ','): string {
  const sign = centavos < 0 ? '-' : ''
  const abs = Math.abs(centavos)
  return `${sign}${Math.trunc(abs / 100)}${decimal}${String(abs % 100).padStart(2, '0')}`
}

/** RFC 4180: a field holding the separator, a quote, CR or LF is quoted, its quotes doubled. */
export function csvField(text: string, separator: ',' | ';'): string {
  if (text.includes(separator) || text.includes('"') || text.includes('\n') || text.includes('\r')) return `"${text.replaceAll('"', '""')}"`
  return text
}

/**
 * Writes one export's file piece by piece: `head()`, then `row()` per record, then `tail()`, each
 * a string to append. `csv`: comma separated; `csv_br`: a UTF-8 BOM, `;` and decimal commas;
 * lines end in CRLF. `json`: an array of objects keyed by column, money in centavos.
 */
export function exportWriter(format: ExportFormat, columns: readonly Column[]) {
  if (format === 'json') {
    let first = true
    return {
      head: () => '[',
      row(values: readonly Cell[]): string {
        const record: Record<string, Cell> = {}
        columns.forEach((column, i) => {
          record[column.key] = values[i] ?? null
        })
        const text = `${first ? '\n' : ',\n'}${JSON.stringify(record)}`
        first = false
        return text
      },
      tail: () => '\n]\n',
    }
  }
  const separator = format === 'csv_br' ? ';' : ','
  const decimal = format === 'csv_br' ? ',' : '.'
  const cell = (column: Column, value: Cell): string => {
    if (value === null || value === undefined) return ''
    switch (column.kind) {
      case 'money':
        return reais(Number(value), decimal)
      case 'int':
        return String(value)
      case 'bool':
        return value ? 'true' : 'false'
      default:
        return csvField(formulaSafe(String(value)), separator)
    }
  }
  return {
    head: () => `${format === 'csv_br' ? '\uFEFF' : ''}${columns.map((c) => csvField(c.key, separator)).join(separator)}\r\n`,
    row: (values: readonly Cell[]) => `${columns.map((column, i) => cell(column, values[i] ?? null)).join(separator)}\r\n`,
    tail: () => '',
  }
}
