/** The scanner page's screens: pairing, choosing lists, scanning, and the full-screen answer. */
import { Offline, Refused, Revoked } from './api.js'
import { startCamera } from './camera.js'
import { createGate } from './gate.js'
import { locale, t, time, translate } from './i18n.js'

const $ = (selector) => document.querySelector(selector)
const ANSWER_SHOWN_MS = 3000

let mode = 'entry'
let stopCamera = null
let hideTimer = null
let audio = null
/** The lists offered on the list screen, by id. */
const offered = new Map()

const gate = createGate({
  onChange: render,
  onRevoked: () => show('pair', { revoked: true }),
  onListsGone: () => chooseLists().catch(() => show('lists')),
})

function show(view, { revoked = false } = {}) {
  document.body.dataset.view = view
  for (const section of document.querySelectorAll('body > section')) section.hidden = section.id !== view
  $('#revoked').hidden = !revoked
  if (view === 'scan') startScanning()
  else stopScanning()
}

function render(state) {
  $('#net').dataset.online = String(state.online)
  $('#net').textContent = t(state.online ? 'online' : 'offline')
  $('#queued').textContent = String(state.queued)
  $('#queued').dataset.count = String(state.queued)
  $('#last-sync').textContent = time(state.lastSync)
  $('#last-sync').dateTime = state.lastSync ?? ''
  const counts = state.lists.map((list) => {
    const s = state.status[list.id]
    return s ? `${list.name}: ${s.inside} ${t('inside')} · ${s.checked_in} ${t('checked_in')} / ${s.tickets} ${t('tickets')}` : list.name
  })
  $('#counts').textContent = counts.join('\n')
  // An upload replaces local verdicts with the server's answers.
  if (document.body.dataset.view === 'scan') renderHistory()
}

/** A seat as the gate shows it: `Plateia · Fila A · Assento 7`. */
const seatText = (seat) => (seat ? `${seat.zone} · ${t('row')} ${seat.row} · ${t('seat')} ${seat.number}` : '')

const ticketLine = (ticket) => (ticket ? [ticket.name, ticket.variant, seatText(ticket.seat)].filter(Boolean).join(' · ') : '')

/** The longest venue name the answer shows: a longer one would push the ticket off a phone's screen. */
const SHORT_VENUE = 40

/**
 * When and where the ticket's show is: `Sat, Dec 12 · 20:00 · Arena Azul`. The date as the page's language writes it, the show's
 * time as the seller wrote it (`HH:MM`, the event's clock), the venue of the list's event when its name is short.
 */
function whenLine(ticket, listId) {
  if (!ticket?.date) return ''
  const day = new Date(`${ticket.date}T00:00:00Z`).toLocaleDateString(locale, { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' })
  const venue = gate.state.lists.find((list) => list.id === listId)?.event?.venue?.name
  return [day, ticket.time, venue && venue.length <= SHORT_VENUE ? venue : null].filter(Boolean).join(' · ')
}

/** The answer's title: a refusal in the words the gate has for it (a transferred ticket, an older code: `why`), else its reason's. */
function verdictTitle(answer, type) {
  if (answer.status === 'refused') return t(answer.why ? `why_${answer.why}` : `reason_${answer.reason}`)
  if (answer.attention) return t('attention')
  return t(type === 'exit' ? 'ok_exit' : 'ok')
}

function signal(ok) {
  navigator.vibrate?.(ok ? 120 : [250, 100, 250])
  try {
    audio ??= new AudioContext()
    const tone = audio.createOscillator()
    tone.frequency.value = ok ? 880 : 220
    tone.connect(audio.destination)
    tone.start()
    tone.stop(audio.currentTime + (ok ? 0.15 : 0.4))
  } catch {
    // No sound before the first tap on some browsers: the screen still answers.
  }
}

/** The answer fills the screen: green, orange for `attention`, red with the reason. */
function showAnswer(answer, type, frameAt) {
  const box = $('#answer')
  const verdict = answer.status === 'refused' ? 'refused' : answer.attention ? 'attention' : 'ok'
  box.dataset.verdict = verdict
  box.dataset.reason = answer.reason ?? ''
  box.dataset.why = answer.why ?? ''
  $('#answer-title').textContent = verdictTitle(answer, type)
  $('#answer-ticket').textContent = ticketLine(answer.ticket)
  $('#answer-when').textContent = whenLine(answer.ticket, answer.list_id)
  $('#answer-holder').textContent = answer.ticket?.holder?.name ?? ''
  box.hidden = false
  // The colour first: the sound and the vibration follow in the next frame (a first AudioContext takes a while).
  requestAnimationFrame(() => {
    if (frameAt !== undefined) performance.measure('scan:frame-to-answer', { start: frameAt, end: performance.now() })
    signal(verdict !== 'refused')
  })
  clearTimeout(hideTimer)
  hideTimer = setTimeout(() => {
    box.hidden = true
  }, ANSWER_SHOWN_MS)
}

async function scan(code, frameAt) {
  const type = mode
  try {
    const { answer } = await gate.scan(code, type)
    showAnswer(answer, type, frameAt)
  } catch (error) {
    if (!(error instanceof Revoked)) console.error(error)
  }
  await renderHistory()
}

async function renderHistory() {
  const list = $('#history')
  list.replaceChildren()
  for (const entry of (await gate.history()).slice(0, 20)) {
    const li = document.createElement('li')
    li.dataset.status = entry.answer.status
    li.dataset.queued = String(entry.queued)
    li.dataset.reason = entry.answer.reason ?? ''
    li.dataset.why = entry.answer.why ?? ''
    // invalid_scan: what the server found wrong with the scan.
    if (entry.answer.details) li.title = entry.answer.details.map((detail) => `${detail.path} ${detail.message}`).join('; ')
    li.textContent = `${time(entry.at)} ${t(entry.type)} · ${verdictTitle(entry.answer, entry.type)} · ${entry.answer.ticket?.identifier ?? ''}${entry.queued ? ` (${t('queued_mark')})` : ''}`
    list.append(li)
  }
}

async function startScanning() {
  await renderHistory()
  if (stopCamera) return
  try {
    stopCamera = await startCamera($('#video'), (text, frameAt) => scan(text, frameAt))
    $('#camera-off').hidden = true
  } catch (error) {
    console.warn('no camera', error)
    $('#camera-off').hidden = false
  }
}

function stopScanning() {
  stopCamera?.()
  stopCamera = null
}

async function chooseLists() {
  show('lists')
  const choices = $('#list-choices')
  choices.replaceChildren()
  const chosen = new Set(gate.state.lists.map((list) => list.id))
  for (const list of await gate.availableLists()) {
    const label = document.createElement('label')
    const box = document.createElement('input')
    box.type = 'checkbox'
    box.value = list.id
    box.checked = chosen.has(list.id)
    offered.set(list.id, list)
    const dates = [list.event.first_date, list.event.last_date].filter(Boolean)
    label.append(box, ` ${list.name} · ${list.event.title}${dates.length ? ` (${[...new Set(dates)].join(' – ')})` : ''}`)
    choices.append(label)
  }
}

async function pair(code) {
  $('#pair-error').hidden = true
  try {
    await gate.pair(code)
    await chooseLists()
  } catch (error) {
    $('#pair-error').textContent = error instanceof Refused ? t('pair_failed') : error instanceof Offline ? t('offline') : String(error)
    $('#pair-error').hidden = false
    show('pair')
  }
}

function wire() {
  $('#pair-form').addEventListener('submit', (event) => {
    event.preventDefault()
    pair($('#pair-code').value)
  })
  $('#lists-form').addEventListener('submit', async (event) => {
    event.preventDefault()
    const lists = [...document.querySelectorAll('#list-choices input:checked')].map((box) => offered.get(box.value))
    if (lists.length === 0) return
    await gate.choose(lists)
    show('scan')
  })
  for (const button of document.querySelectorAll('[data-mode]')) {
    button.addEventListener('click', () => {
      mode = button.dataset.mode
      for (const other of document.querySelectorAll('[data-mode]')) other.setAttribute('aria-pressed', String(other === button))
    })
  }
  $('#manual-form').addEventListener('submit', (event) => {
    event.preventDefault()
    const code = $('#manual').value.trim()
    if (code) scan(code)
    $('#manual').value = ''
  })
  $('#manual-search').addEventListener('click', async () => {
    const q = $('#manual').value.trim()
    if (q.length < 3) return
    const results = $('#results')
    results.replaceChildren()
    const found = await gate.search(q).catch(() => [])
    if (found.length === 0) results.textContent = t('no_results')
    for (const ticket of found) {
      const li = document.createElement('li')
      const button = document.createElement('button')
      button.type = 'button'
      button.textContent = `${ticket.identifier} · ${ticketLine(ticket)} · ${ticket.holder?.name ?? ''}`
      button.addEventListener('click', () => scan(ticket.identifier))
      li.append(button)
      results.append(li)
    }
  })
  $('#answer').addEventListener('click', () => {
    $('#answer').hidden = true
  })
  $('#change-lists').addEventListener('click', () => chooseLists().catch(() => show('scan')))
}

async function main() {
  translate(document)
  wire()
  if ('serviceWorker' in navigator) navigator.serviceWorker.register('sw.js').catch((error) => console.warn('no service worker', error))
  await gate.load()
  // A pairing code arrives after `#`, which no browser sends to a server; it leaves the address at once.
  const pairing = new URLSearchParams(location.hash.slice(1)).get('pair')
  if (pairing) {
    history.replaceState(null, '', location.pathname + location.search)
    return pair(pairing)
  }
  if (!gate.state.token) return show('pair')
  if (gate.state.lists.length === 0) return chooseLists().catch(() => show('pair'))
  show('scan')
  gate.sync()
}

main()
