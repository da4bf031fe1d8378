import { describe, expect, it } from 'vitest'
import { csvField, exportWriter, formulaSafe, reais } from '../../src/domain/reports/export-format.js'

/** docs/exports.md: how cells are written. */
describe('export cells', () => {
  it('money in reais, no thousands separators, a dot or a comma', () => {
    expect(reais(12345, '.')).toBe('123.45')
    expect(reais(12345678, ',')).toBe('123456,78')
    expect(reais(5, '.')).toBe('0.05')
    expect(reais(0, ',')).toBe('0,00')
    expect(reais(-5000, '.')).toBe('-50.00')
    expect(reais(-7, ',')).toBe('-0,07')
  })

  it('text a spreadsheet would run as a formula gets a leading quote', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) expect(formulaSafe(`${start}x`)).toBe(`'${start}x`)
    expect(formulaSafe('Ana')).toBe('Ana')
    expect(formulaSafe("'=x")).toBe("'=x")
    expect(formulaSafe('')).toBe('')
  })

  it('RFC 4180 quoting: the separator, quotes, CR and LF', () => {
    expect(csvField('a,b', ',')).toBe('"a,b"')
    expect(csvField('a,b', ';')).toBe('a,b')
    expect(csvField('a;b', ';')).toBe('"a;b"')
    expect(csvField('say "hi"', ',')).toBe('"say ""hi"""')
    expect(csvField('two\nlines', ',')).toBe('"two\nlines"')
    expect(csvField('cr\r', ';')).toBe('"cr\r"')
  })

  it('numbers are never prefixed; nulls are empty cells', () => {
    const columns = [
      { key: 'name', kind: 'text' },
      { key: 'amount', kind: 'money' },
      { key: 'n', kind: 'int' },
      { key: 'ok', kind: 'bool' },
    ] as const
    const csv = exportWriter('csv', columns)
    expect(csv.head()).toBe('name,amount,n,ok\r\n')
    expect(csv.row(['-1', -150, -2, false])).toBe("'-1,-1.50,-2,false\r\n")
    expect(csv.row([null, null, null, null])).toBe(',,,\r\n')
    const br = exportWriter('csv_br', columns)
    expect(br.head()).toBe('\uFEFFname;amount;n;ok\r\n')
    expect(br.row(['=1+1', 123456, 3, true])).toBe("'=1+1;1234,56;3;true\r\n")
    const json = exportWriter('json', columns)
    expect(JSON.parse(json.head() + json.row(['=1', -150, 2, true]) + json.row([null, 0, 0, false]) + json.tail())).toEqual([
      { name: '=1', amount: -150, n: 2, ok: true },
      { name: null, amount: 0, n: 0, ok: false },
    ])
    expect(JSON.parse(json.head() + exportWriter('json', columns).tail())).toEqual([])
  })
})
