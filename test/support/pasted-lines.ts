import { execFile, spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

/**
 * A stand-in for curl where the machine has none: sends the request of the options the printed
 * lines use (`-s`, `-u`, `-H`, `-d`, the URL) by fetch and writes the answer's body, as curl does.
 */
const CURL_STAND_IN = `#!/usr/bin/env node
;(async () => {
  const args = process.argv.slice(2)
  const headers = {}
  let body
  let url
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    if (arg === '-s') continue
    if (arg === '-u') headers.authorization = 'Basic ' + Buffer.from(args[++i]).toString('base64')
    else if (arg === '-H') {
      const [name, ...value] = args[++i].split(':')
      headers[name.trim()] = value.join(':').trim()
    } else if (arg === '-d') body = args[++i]
    else url = arg
  }
  const res = await fetch(url, { method: body === undefined ? 'GET' : 'POST', headers, body })
  process.stdout.write(await res.text())
})()
`

let curlPath: string | undefined

/** The PATH under which `curl` runs: this machine's, or with the stand-in first when it has no curl. */
function pathWithCurl(): string {
  const searchPath = process.env.PATH ?? ''
  if (spawnSync('curl', ['--version']).status === 0) return searchPath
  if (!curlPath) {
    curlPath = mkdtempSync(path.join(tmpdir(), 'boxoffice-curl-'))
    writeFileSync(path.join(curlPath, 'curl'), CURL_STAND_IN)
    chmodSync(path.join(curlPath, 'curl'), 0o755)
  }
  return `${curlPath}${path.delimiter}${searchPath}`
}

/**
 * Runs printed lines as a user pastes them: into one bash, one after the other, so that a
 * variable one line sets is there for the next. Answers what they wrote.
 */
export async function runPastedLines(lines: readonly string[]): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)('bash', ['-c', lines.join('\n')], { env: { ...process.env, PATH: pathWithCurl() } })
}
