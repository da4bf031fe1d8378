import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { AppError } from '../errors.js'

/** The page's own folder, beside src/ and dist/: plain modules served as they are. */
const PAGE_DIR = fileURLToPath(new URL('../../../scan-page/', import.meta.url))

/**
 * Files of packages the page runs, served under `vendor/` from our origin: the QR decoder
 * (zxing-wasm's reader, its shared module and its WebAssembly: by default it would fetch the
 * WebAssembly from a public CDN) and the Ed25519 verifier for browsers whose Web Crypto has none.
 */
const VENDOR: Record<string, URL> = {
  'vendor/zxing/reader/index.js': new URL(import.meta.resolve('zxing-wasm/reader')),
  'vendor/zxing/share.js': new URL('../share.js', import.meta.resolve('zxing-wasm/reader')),
  'vendor/zxing/zxing_reader.wasm': new URL(import.meta.resolve('zxing-wasm/reader/zxing_reader.wasm')),
  'vendor/noble-ed25519.js': new URL(import.meta.resolve('@noble/ed25519')),
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.wasm': 'application/wasm',
  '.webmanifest': 'application/manifest+json',
}

/**
 * Its own origin only. `wasm-unsafe-eval` lets the decoder compile its WebAssembly (and nothing
 * else: no eval of scripts); `blob:` and `data:` for the camera's stream and the QR images.
 */
export const SCAN_PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob: mediastream:",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

type Asset = { body: Buffer; type: string; etag: string }

function pageFiles(dir: string, prefix = ''): string[] {
  return readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? pageFiles(dir, `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`],
  )
}

const etagOf = (body: Buffer) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`

/**
 * Every asset, read once at start. The service worker (`sw.js`) is a template: it gets the list
 * of assets to keep for offline use and a version made from all their contents, so a release
 * that changes any file installs a new worker and a fresh cache.
 */
function loadAssets(): Map<string, Asset> {
  const files = new Map<string, Buffer>()
  for (const name of pageFiles(PAGE_DIR)) files.set(name, readFileSync(path.join(PAGE_DIR, name)))
  for (const [name, url] of Object.entries(VENDOR)) files.set(name, readFileSync(url))
  const version = createHash('sha256')
  for (const [name, body] of [...files].sort(([a], [b]) => a.localeCompare(b))) version.update(name).update(body)
  const worker = files.get('sw.js')!.toString('utf8')
  const shell = ['./', ...[...files.keys()].filter((name) => name !== 'sw.js' && name !== 'index.html')]
  files.set(
    'sw.js',
    Buffer.from(worker.replace("'__VERSION__'", JSON.stringify(version.digest('base64url').slice(0, 16))).replace("['__ASSETS__']", JSON.stringify(shell))),
  )
  const assets = new Map<string, Asset>()
  for (const [name, body] of files) assets.set(name, { body, type: TYPES[path.extname(name)] ?? 'application/octet-stream', etag: etagOf(body) })
  return assets
}

/**
 * `GET /scan/`: the gate scanner page (docs/door.md) and its assets, all from this origin, under
 * a strict Content-Security-Policy. Every answer is revalidated (`no-cache` and an ETag): the
 * service worker keeps the copy that works offline. A known, fixed set of files: no path from a
 * request ever reaches the file system.
 */
export const scanPage: FastifyPluginAsync = fp(async (app) => {
  const assets = loadAssets()

  const send = (request: FastifyRequest, reply: FastifyReply, asset: Asset) => {
    reply.header('content-security-policy', SCAN_PAGE_CSP).header('cache-control', 'no-cache').header('etag', asset.etag).type(asset.type)
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send()
    return reply.send(asset.body)
  }

  // Trailing slashes are dropped before routing (trailing-slash.ts): `/scan/` arrives as `/scan`.
  app.get('/scan', { schema: { hide: true } }, (request, reply) => {
    // Without it the page's relative addresses would resolve outside /scan/.
    if (!request.originalUrl.split('?')[0]!.endsWith('/')) return reply.redirect('scan/', 308)
    return send(request, reply, assets.get('index.html')!)
  })

  app.get('/scan/*', { schema: { hide: true } }, (request, reply) => {
    const asset = assets.get((request.params as { '*': string })['*'])
    if (!asset) throw new AppError('not_found')
    // The service worker may control all of /scan/, where it lives.
    if (asset === assets.get('sw.js')) reply.header('service-worker-allowed', '/scan/')
    return send(request, reply, asset)
  })
})
