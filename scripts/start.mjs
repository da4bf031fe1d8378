// `npm start` and `npm run demo:credentials`: the server (src/server.ts) from compiled JavaScript
// in dist/, as the image runs it. TypeScript compiled on the fly (node --import tsx) held 60 to 70
// MB more of resident memory for as long as the server ran (docs/performance.md, Memory); here
// src/ is compiled once, without type checking (`npm run typecheck` does that), by a process of
// its own, and again only when a file of src/ or a tsconfig changed since. Plain JavaScript: it
// runs before anything is compiled.
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const dist = path.join(root, 'dist')
/** Written once dist/ holds all of src/ compiled: its time is that of the compilation. */
const compiled = path.join(dist, '.compiled')

/** The latest modification time of the files under `dir`, in ms. */
function latest(dir) {
  let time = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name)
    time = Math.max(time, entry.isDirectory() ? latest(file) : statSync(file).mtimeMs)
  }
  return time
}

function upToDate() {
  if (!existsSync(compiled)) return false
  const sources = Math.max(latest(path.join(root, 'src')), ...['tsconfig.json', 'tsconfig.build.json'].map((f) => statSync(path.join(root, f)).mtimeMs))
  return statSync(compiled).mtimeMs >= sources
}

/** tsc, or undefined where the development dependencies are not installed. */
function compiler() {
  try {
    return createRequire(import.meta.url).resolve('typescript/bin/tsc')
  } catch {
    return undefined
  }
}

const tsc = upToDate() ? undefined : compiler()
if (tsc) {
  process.stdout.write('Compiling src/ into dist/ (once, and again after a change)...\n')
  // Every file of src/ is named by tsconfig.build.json: no import needs resolving to emit them (a third faster).
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck', '--noResolve'], { cwd: root, stdio: 'inherit' })
  if (result.status !== 0) process.exit(result.status ?? 1)
  // The database function files and their release (src/**/*.sql, *.json) go beside the compiled code, as `npm run build` puts them.
  cpSync(path.join(root, 'src'), dist, { recursive: true, filter: (source) => statSync(source).isDirectory() || /\.(sql|json)$/.test(source) })
  writeFileSync(compiled, `${new Date().toISOString()}\n`)
}

if (upToDate()) await import(pathToFileURL(path.join(dist, 'server.js')).href)
else {
  // Without TypeScript to compile with (`npm install --omit=dev`): from the sources through tsx.
  const { register } = await import('tsx/esm/api')
  register()
  await import(pathToFileURL(path.join(root, 'src/server.ts')).href)
}
