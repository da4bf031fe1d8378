/**
 * What the page keeps on the device, in IndexedDB: it survives a reload, a restart of the
 * browser and the network going away. `kv`: the device token, the chosen lists, the keys, feed
 * cursors, counts and the last sync; `tickets`: each chosen list's copy of its tickets;
 * `queue`: scans made offline, waiting to be uploaded; `history`: the latest answers.
 */

const NAME = 'boxoffice-scanner'
const HISTORY_KEPT = 200

let opening

function open() {
  opening ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(NAME, 1)
    request.onupgradeneeded = () => {
      const db = request.result
      db.createObjectStore('kv')
      db.createObjectStore('tickets', { keyPath: 'key' }).createIndex('list', 'list_id')
      db.createObjectStore('queue', { keyPath: 'nonce' })
      db.createObjectStore('history', { keyPath: 'nonce' }).createIndex('at', 'at')
    }
    request.onsuccess = () => resolve(request.result)
    request.onerror = () => reject(request.error)
  })
  return opening
}

const done = (request) =>
  new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result)
    request.onerror = () => reject(request.error)
  })

async function run(store, mode, work) {
  const tx = (await open()).transaction(store, mode)
  const result = await work(tx.objectStore(store))
  await new Promise((resolve, reject) => {
    tx.oncomplete = resolve
    tx.onerror = () => reject(tx.error)
    tx.onabort = () => reject(tx.error)
  })
  return result
}

const ticketKey = (listId, identifier) => `${listId} ${identifier}`

export const store = {
  get: (key) => run('kv', 'readonly', (s) => done(s.get(key))),
  set: (key, value) => run('kv', 'readwrite', (s) => done(s.put(value, key))),
  remove: (key) => run('kv', 'readwrite', (s) => done(s.delete(key))),

  /** A list's kept ticket of this identifier, or undefined. */
  ticket: (listId, identifier) => run('tickets', 'readonly', (s) => done(s.get(ticketKey(listId, identifier)))),
  listTickets: (listId) => run('tickets', 'readonly', (s) => done(s.index('list').getAll(listId))),
  putTickets: (listId, tickets) =>
    run('tickets', 'readwrite', async (s) => {
      for (const ticket of tickets) s.put({ ...ticket, list_id: listId, key: ticketKey(listId, ticket.identifier) })
    }),
  dropTickets: (listId) =>
    run('tickets', 'readwrite', async (s) => {
      for (const key of await done(s.index('list').getAllKeys(listId))) s.delete(key)
    }),

  queued: () => run('queue', 'readonly', (s) => done(s.getAll())),
  queueCount: () => run('queue', 'readonly', (s) => done(s.count())),
  enqueue: (scan) => run('queue', 'readwrite', (s) => done(s.put(scan))),
  dequeue: (nonces) =>
    run('queue', 'readwrite', async (s) => {
      for (const nonce of nonces) s.delete(nonce)
    }),

  /** Adds or replaces entries of the history (by nonce), keeping the latest HISTORY_KEPT. */
  record: (entries) =>
    run('history', 'readwrite', async (s) => {
      for (const entry of entries) s.put(entry)
      const keys = await done(s.index('at').getAllKeys())
      for (const key of keys.slice(0, Math.max(0, keys.length - HISTORY_KEPT))) s.delete(key)
    }),
  historyEntry: (nonce) => run('history', 'readonly', (s) => done(s.get(nonce))),
  history: async () => (await run('history', 'readonly', (s) => done(s.index('at').getAll()))).reverse(),

  /** Forgets everything: a revoked device, or one paired anew. */
  clear: async () => {
    for (const name of ['kv', 'tickets', 'queue', 'history']) await run(name, 'readwrite', (s) => done(s.clear()))
  },
}
