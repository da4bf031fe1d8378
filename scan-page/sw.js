/**
 * The scanner page's service worker: the page and its assets from a cache made at install, so
 * that the page opens with no network. Calls to /chk/v1 are never cached (the page keeps its
 * data in IndexedDB). VERSION and ASSETS are filled in by the server from the files it serves.
 */
const VERSION = '__VERSION__'
const ASSETS = ['__ASSETS__']
const CACHE = `scanner-${VERSION}`

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(ASSETS))
      .then(() => self.skipWaiting()),
  )
})

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name.startsWith('scanner-') && name !== CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  )
})

self.addEventListener('fetch', (event) => {
  const request = event.request
  const url = new URL(request.url)
  if (request.method !== 'GET' || url.origin !== self.location.origin || !url.pathname.startsWith(new URL('./', self.location).pathname)) return
  const key = request.mode === 'navigate' ? new URL('./', self.location).href : request
  // The release's copy first: it opens at once, with or without a network; a new release
  // brings a new worker (the browser checks sw.js at each load) and with it a new cache.
  event.respondWith(caches.match(key, { ignoreSearch: true, cacheName: CACHE }).then((cached) => cached ?? fetch(request)))
})
