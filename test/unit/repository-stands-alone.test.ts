import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

/**
 * The repository stands alone: its README, guides, code and tests name no file outside it (the
 * served OpenAPI document is the reference, and docs/ the guides). A reference that crept in is
 * listed with its file and line. Migrations stay as they were applied, comments and all.
 */
describe('the repository', () => {
  it('refers to no file outside it', () => {
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8' })
      .split('\n')
      .filter((file) => /\.(ts|mjs|js|md|sql|html|json|yml|yaml)$|^Dockerfile$|^\.env\.example$/.test(file) && !file.startsWith('migrations/'))
    expect(files.length).toBeGreaterThan(100)
    const outside = /\bAPI\.md\b|\.\.\/shared\b|\/work\/shared/
    const found = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, n) => (outside.test(line) && file !== 'test/unit/repository-stands-alone.test.ts' ? [`${file}:${n + 1}: ${line.trim()}`] : [])),
    )
    expect(found).toEqual([])
  })
})
