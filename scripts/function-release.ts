/**
 * `npm run db:functions`: advances the release of the database function files
 * (src/platform/db/function-release.json) when any file's text changed since it was recorded,
 * and records the new hashes. Replicas order themselves by it during a rolling deploy: a build
 * never replaces a function applied by a higher release (src/platform/db/function-files.ts).
 * Run it after changing a `sql/*.sql` file, and after a merge that brings changed ones; the
 * function files' test fails until it has.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { functionFiles } from '../src/platform/db/function-files.js'

type Ledger = { release: number; files: Record<string, string> }

const LEDGER = new URL('../src/platform/db/function-release.json', import.meta.url)

/** The ledger for `files`: the same one when nothing changed, else the next release with their hashes. */
export function nextLedger(current: Ledger, files: readonly { file: string; sha256: string }[]): Ledger {
  const hashes = Object.fromEntries(files.map((f) => [f.file, f.sha256]))
  const same = JSON.stringify(hashes) === JSON.stringify(current.files)
  return same ? current : { release: current.release + 1, files: hashes }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const current = JSON.parse(readFileSync(LEDGER, 'utf8')) as Ledger
  const next = nextLedger(current, functionFiles())
  if (next === current) console.log(`function files unchanged: release ${current.release}`)
  else {
    writeFileSync(LEDGER, `${JSON.stringify(next, null, 2)}\n`)
    const changed = Object.keys(next.files).filter((file) => current.files[file] !== next.files[file])
    const removed = Object.keys(current.files).filter((file) => !(file in next.files))
    console.log(`function files: release ${current.release} -> ${next.release}`)
    for (const file of changed) console.log(`  changed  ${file}`)
    for (const file of removed) console.log(`  removed  ${file}`)
  }
}
