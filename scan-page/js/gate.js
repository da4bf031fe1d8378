/**
 * The gate: pairing, the chosen lists, scanning online and offline, and keeping the copy for
 * offline in step. Online, a scan is judged by the server (POST /chk/v1/redeem); when the
 * network is gone or the server does not answer in time, it is judged here against the copy
 * (judge.js), queued with its nonce and its own time, and uploaded later through
 * /chk/v1/redeem/batch with `force: true`: the server's answer then replaces the local verdict.
 */
import { call, Offline, Refused, Revoked } from './api.js'
import { looksSigned, prepareKeys, verifyCode } from './codes.js'
import { judgeScan, showOf, whyInvalid } from './judge.js'
import { store } from './store.js'

const ONLINE_SYNC_MS = 30_000
const OFFLINE_RETRY_MS = 5_000
/** An online answer slower than this is judged here instead (and queued): the gate keeps moving. */
const REDEEM_TIMEOUT_MS = 2_000
const BATCH = 1000
/** An upload's body stays well under the server's 1 MiB: a queue of long junk codes goes up in several. */
const BATCH_BYTES = 512 * 1024

/** The queue in uploads of at most BATCH scans and about BATCH_BYTES each, oldest first. */
function chunked(scans) {
  const chunks = []
  let chunk = []
  let bytes = 0
  for (const scan of scans) {
    const size = JSON.stringify(scan).length + 32
    if (chunk.length === BATCH || (chunk.length > 0 && bytes + size > BATCH_BYTES)) {
      chunks.push(chunk)
      chunk = []
      bytes = 0
    }
    chunk.push(scan)
    bytes += size
  }
  if (chunk.length > 0) chunks.push(chunk)
  return chunks
}

export function createGate({ onChange, onRevoked, onListsGone }) {
  const state = { token: null, device: null, lists: [], keys: [], online: navigator.onLine, lastSync: null, queued: 0, status: {}, shows: {} }
  let syncing = null
  let timer = null

  const changed = () => onChange({ ...state })

  function setOnline(online) {
    if (state.online !== online) {
      state.online = online
      changed()
    }
  }

  async function revoked() {
    clearTimeout(timer)
    await store.clear()
    Object.assign(state, { token: null, device: null, lists: [], keys: [], lastSync: null, queued: 0, status: {}, shows: {} })
    onRevoked()
  }

  /**
   * Runs `work` against the server, telling online from offline: any answer of the server, a
   * refusal too, means it is there; a refused token ends the pairing.
   */
  async function guarded(work) {
    try {
      const result = await work()
      setOnline(true)
      return result
    } catch (error) {
      if (error instanceof Offline) setOnline(false)
      else if (error instanceof Revoked) await revoked()
      else setOnline(true)
      throw error
    }
  }

  /** Forgets a list this gate no longer scans: its copy, its cursor and its counts. */
  async function forget(list) {
    await store.dropTickets(list.id)
    await store.remove(`cursor:${list.id}`)
    delete state.status[list.id]
  }

  /** The chosen lists as the server has them now: their rules may have changed, and a deleted one is scanned no more. */
  async function refreshLists() {
    const current = new Map((await call('/lists', { token: state.token })).data.map((list) => [list.id, list]))
    for (const gone of state.lists.filter((list) => !current.has(list.id))) await forget(gone)
    const before = state.lists.length
    state.lists = state.lists.filter((list) => current.has(list.id)).map((list) => current.get(list.id))
    await store.set('lists', state.lists)
    // Every list it scanned is gone: the gate asks which to scan now.
    if (before > 0 && state.lists.length === 0) onListsGone()
  }

  /** Each chosen list's kept ticket of this identifier (or nothing), by list id. */
  async function keptTickets(identifier) {
    const known = {}
    for (const list of state.lists) known[list.id] = await store.ticket(list.id, identifier)
    return known
  }

  /**
   * The server's `invalid` with the words the copy can add (`whyInvalid`): the server says no
   * more of a given-away identifier or an older code than of a code it never issued, and the
   * door should not read "not a ticket of this event" for a ticket given to someone else. For an
   * uploaded scan, `judgedHere` is the verdict the gate gave it offline, whose words stay when
   * the copy has none to add.
   */
  async function explained(code, answer, judgedHere = null) {
    if (answer.status !== 'refused' || answer.reason !== 'invalid' || answer.why) return answer
    const claims = looksSigned(code) ? await verifyCode(code, state.keys) : null
    let why = null
    // A code that does not verify here says nothing of the ticket it names.
    if (claims || !looksSigned(code)) why = whyInvalid(await keptTickets(claims?.tid ?? code.trim().toUpperCase()), claims)
    why ??= judgedHere?.reason === 'invalid' ? (judgedHere.why ?? null) : null
    return why ? { ...answer, why } : answer
  }

  /**
   * Uploads the queue, oldest first. Every scan answered leaves the queue, and the server's answer
   * replaces the local verdict in the history; one it answers `invalid_scan` (a list deleted since,
   * a code no ticket can have) shows refused, with that reason.
   */
  async function upload() {
    const queued = (await store.queued()).sort((a, b) => a.scanned_at.localeCompare(b.scanned_at))
    for (const chunk of chunked(queued)) {
      const { results } = await call('/redeem/batch', {
        token: state.token,
        method: 'POST',
        timeoutMs: 30_000,
        body: { scans: chunk.map(({ code, list_ids, type, scanned_at, nonce }) => ({ code, list_ids, type, scanned_at, nonce, force: true })) },
      })
      const entries = []
      for (const [n, scan] of chunk.entries()) {
        const answer = results[n]
        const before = await store.historyEntry(scan.nonce)
        // A scan the server could not take names no ticket: the history keeps the one the gate saw.
        const shown = await explained(scan.code, answer.ticket ? answer : { ...answer, ticket: before?.answer?.ticket ?? null }, before?.answer)
        entries.push({ ...(before ?? { nonce: scan.nonce, at: scan.scanned_at, type: scan.type }), answer: shown, queued: false })
        if (answer.ticket && answer.list_id) await store.putTickets(answer.list_id, [answer.ticket])
      }
      await store.record(entries)
      await store.dequeue(chunk.map((scan) => scan.nonce))
    }
  }

  async function refreshKeys() {
    state.keys = (await call('/keys', { token: state.token })).keys
    await store.set('keys', state.keys)
    prepareKeys(state.keys).catch(() => {})
  }

  async function refreshStatus(list) {
    state.status[list.id] = await call(`/lists/${list.id}/status`, { token: state.token })
    await store.set('status', state.status)
  }

  /**
   * Keeps what the feed says of each inventory's show (date, times, window of entry), by inventory: a code of a ticket
   * sold since the last sync is judged by its inventory's window, as the server judges it.
   */
  async function learnShows(tickets) {
    if (tickets.length === 0) return
    for (const ticket of tickets) if (ticket.entry_opens_at) state.shows[ticket.inventory_id] = showOf(ticket)
    await store.set('shows', state.shows)
  }

  async function refreshList(list) {
    let cursor = await store.get(`cursor:${list.id}`)
    for (;;) {
      const page = await call(`/lists/${list.id}/tickets${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`, { token: state.token, timeoutMs: 30_000 })
      if (page.reset) await store.dropTickets(list.id)
      await store.putTickets(list.id, page.data)
      await learnShows(page.data)
      cursor = page.next_cursor
      await store.set(`cursor:${list.id}`, cursor)
      if (!page.has_more) break
    }
    await refreshStatus(list)
  }

  /**
   * The counts as this gate's copy of the tickets has them: offline, they still move with every
   * scan (each scan judged here updates its ticket in the copy).
   */
  async function countHere() {
    for (const list of state.lists) {
      const valid = (await store.listTickets(list.id)).filter((ticket) => ticket.status === 'valid')
      state.status[list.id] = {
        ...state.status[list.id],
        list_id: list.id,
        tickets: valid.length,
        checked_in: valid.filter((ticket) => ticket.checked_in).length,
        inside: valid.filter((ticket) => ticket.inside).length,
      }
    }
    await store.set('status', state.status)
  }

  /** One step of a sync: whatever goes wrong in it (network, 5xx, any 4xx), the next step runs. Answers whether it worked. */
  async function step(name, work) {
    try {
      await guarded(work)
      return true
    } catch (error) {
      if (error instanceof Revoked) throw error
      if (!(error instanceof Offline)) console.warn(`sync: ${name} failed`, error)
      return false
    }
  }

  /**
   * Learns the lists, uploads the queue, then refreshes the keys, the lists' tickets and their
   * counts, one at a time. Nothing stops it: a failed upload stays queued for the next sync and
   * the refreshes go on.
   */
  function sync() {
    syncing ??= (async () => {
      try {
        let synced = await step('lists', refreshLists)
        synced = (await step('upload', upload)) && synced
        synced = (await step('keys', refreshKeys)) && synced
        for (const list of state.lists) synced = (await step(`list ${list.name}`, () => refreshList(list))) && synced
        if (synced) {
          state.lastSync = new Date().toISOString()
          await store.set('lastSync', state.lastSync)
        }
      } catch {
        // Revoked: the pairing is gone, and the page shows pairing again.
      } finally {
        syncing = null
        state.queued = await store.queueCount()
        changed()
        schedule()
      }
    })()
    return syncing
  }

  function schedule() {
    clearTimeout(timer)
    if (state.token && state.lists.length > 0) timer = setTimeout(sync, state.online ? ONLINE_SYNC_MS : OFFLINE_RETRY_MS)
  }

  /** A scan judged by the server. A list deleted since the gate learnt its lists (404): learn them again, and ask once more. */
  async function redeemOnline(code, type, nonce) {
    const ask = () =>
      guarded(() =>
        call('/redeem', {
          token: state.token,
          method: 'POST',
          timeoutMs: REDEEM_TIMEOUT_MS,
          body: { code, list_ids: state.lists.map((list) => list.id), type, nonce },
        }),
      )
    try {
      return await ask()
    } catch (error) {
      if (!(error instanceof Refused && error.status === 404)) throw error
      const before = state.lists.length
      await guarded(refreshLists)
      if (state.lists.length === before || state.lists.length === 0) throw error
      changed()
      return ask()
    }
  }

  async function judgeHere(code, type, at) {
    const claims = looksSigned(code) ? await verifyCode(code, state.keys) : null
    if (looksSigned(code) && !claims) return { status: 'refused', reason: 'invalid', attention: false, list_id: null, ticket: null }
    const known = await keptTickets(claims?.tid ?? code.trim().toUpperCase())
    const verdict = judgeScan({ lists: state.lists, known, claims, type, now: at, shows: state.shows })
    if (verdict.status === 'ok') await store.putTickets(verdict.list_id, [verdict.ticket])
    return verdict
  }

  return {
    state,

    async load() {
      state.token = (await store.get('token')) ?? null
      state.device = (await store.get('device')) ?? null
      state.lists = (await store.get('lists')) ?? []
      state.keys = (await store.get('keys')) ?? []
      prepareKeys(state.keys).catch(() => {})
      state.lastSync = (await store.get('lastSync')) ?? null
      state.status = (await store.get('status')) ?? {}
      state.shows = (await store.get('shows')) ?? {}
      state.queued = await store.queueCount()
      addEventListener('online', () => sync())
      addEventListener('offline', () => setOnline(false))
      changed()
    },

    /** Pairs this page with a code; the token is kept in IndexedDB only. */
    async pair(code) {
      const answer = await call('/pair', {
        method: 'POST',
        body: { pairing_code: code, software: 'Boxoffice scanner page', hardware: navigator.userAgent.slice(0, 200) },
      })
      await store.clear()
      await store.set('token', answer.token)
      await store.set('device', answer.device)
      state.token = answer.token
      state.device = answer.device
      setOnline(true)
      changed()
    },

    /** The lists this device may scan (online only). */
    availableLists: () => guarded(() => call('/lists', { token: state.token })).then((answer) => answer.data),

    /** Scans these lists from now on: their copies are fetched at once. */
    async choose(lists) {
      for (const old of state.lists) if (!lists.some((list) => list.id === old.id)) await forget(old)
      state.lists = lists
      await store.set('lists', lists)
      await sync()
    },

    sync,

    /**
     * Judges one scanned or typed code: `{answer, queued}` where answer is a RedeemAnswer,
     * the server's when it answered, else this page's own.
     */
    async scan(code, type) {
      const nonce = crypto.randomUUID()
      const at = new Date()
      if (state.online) {
        try {
          const answer = await explained(code, await redeemOnline(code, type, nonce))
          if (answer.ticket && answer.list_id) await store.putTickets(answer.list_id, [answer.ticket])
          await store.record([{ nonce, at: at.toISOString(), type, answer, queued: false }])
          // The counts follow every scan; the answer does not wait for them.
          const list = state.lists.find((list) => list.id === answer.list_id)
          if (list) guarded(() => refreshStatus(list)).then(changed, () => {})
          return { answer, queued: false }
        } catch (error) {
          if (error instanceof Revoked) throw error
          if (error instanceof Refused) {
            const answer = { status: 'refused', reason: 'invalid', attention: false, list_id: null, ticket: null }
            return { answer, queued: false }
          }
        }
      }
      const listIds = state.lists.map((list) => list.id)
      const answer = await judgeHere(code, type, at)
      await store.enqueue({ nonce, code, list_ids: listIds, type, scanned_at: at.toISOString() })
      await store.record([{ nonce, at: at.toISOString(), type, answer, queued: true }])
      state.queued = await store.queueCount()
      await countHere()
      changed()
      schedule()
      return { answer, queued: true }
    },

    /** Tickets of the chosen lists by identifier, order, holder name or email: the server's search online, the copy offline. */
    async search(q) {
      try {
        const found = []
        for (const list of state.lists)
          found.push(...(await guarded(() => call(`/search?list_id=${list.id}&q=${encodeURIComponent(q)}`, { token: state.token }))).data)
        return found
      } catch (error) {
        if (!(error instanceof Offline)) throw error
        const needle = q.trim().toLowerCase()
        const found = []
        for (const list of state.lists) {
          for (const ticket of await store.listTickets(list.id)) {
            if (ticket.identifier.toLowerCase().startsWith(needle) || ticket.order_id.startsWith(needle) || ticket.holder?.name.toLowerCase().includes(needle))
              found.push(ticket)
          }
        }
        return found.slice(0, 50)
      }
    },

    history: () => store.history(),
  }
}
