/**
 * `npm run build` after tsc: copies the database function files (`src/**\/sql/*.sql`, applied by
 * the migrator: src/platform/db/function-files.ts) beside the compiled code, which tsc does not.
 * Usage: copy-function-files.ts <source dir> <compiled dir>.
 */
import { cpSync, statSync } from 'node:fs'

export function copyFunctionFiles(from: string, to: string) {
  cpSync(from, to, { recursive: true, filter: (source) => statSync(source).isDirectory() || source.endsWith('.sql') })
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [from, to] = process.argv.slice(2)
  if (!from || !to) throw new Error('usage: copy-function-files.ts <source dir> <compiled dir>')
  copyFunctionFiles(from, to)
}
