/** The page's words in Portuguese (pt-BR) and English; the browser's languages choose. */

const MESSAGES = {
  en: {
    title: 'Gate scanner',
    pair_intro: 'Open the pairing link from the back office on this phone, or type the pairing code.',
    pair_code: 'Pairing code',
    pair: 'Pair',
    pairing: 'Pairing…',
    pair_failed: 'This code is unknown, used or expired.',
    revoked: 'This device was revoked. Pair it again with a new code.',
    choose_lists: 'Which lists does this gate scan?',
    start: 'Start scanning',
    entry: 'Entry',
    exit: 'Exit',
    online: 'online',
    offline: 'offline',
    queued: 'waiting to upload',
    last_sync: 'last sync',
    never: 'never',
    inside: 'inside',
    checked_in: 'checked in',
    tickets: 'tickets',
    row: 'Row',
    seat: 'Seat',
    manual: 'Identifier, name or email',
    search: 'Search',
    redeem: 'Check',
    no_results: 'Nothing found.',
    lists: 'Lists',
    camera_off: 'No camera: type or search below.',
    history: 'Latest scans',
    queued_mark: 'queued',
    ok: 'Valid',
    ok_exit: 'Exit recorded',
    attention: 'Valid: check before letting in',
    reason_invalid: 'Not a ticket of this event',
    reason_voided: 'Voided ticket',
    reason_unpaid: 'Not paid',
    reason_already_redeemed: 'Already used',
    reason_product: 'Not on this list',
    reason_invalid_time: 'Not valid at this time',
    reason_ambiguous: 'On more than one list: choose one',
    reason_nonce_conflict: 'Scan conflict',
    reason_invalid_scan: 'Not taken by the server',
    why_transferred: 'Transferred to someone else',
    why_older_code: 'Replaced: an older code',
    tap_to_close: 'Tap to go on',
  },
  'pt-BR': {
    title: 'Leitor de portaria',
    pair_intro: 'Abra neste celular o link de pareamento do painel, ou digite o código de pareamento.',
    pair_code: 'Código de pareamento',
    pair: 'Parear',
    pairing: 'Pareando…',
    pair_failed: 'Código desconhecido, já usado ou expirado.',
    revoked: 'Este dispositivo foi revogado. Pareie de novo com um novo código.',
    choose_lists: 'Quais listas esta portaria lê?',
    start: 'Começar a ler',
    entry: 'Entrada',
    exit: 'Saída',
    online: 'online',
    offline: 'offline',
    queued: 'aguardando envio',
    last_sync: 'última sincronização',
    never: 'nunca',
    inside: 'dentro',
    checked_in: 'entraram',
    tickets: 'ingressos',
    row: 'Fila',
    seat: 'Assento',
    manual: 'Identificador, nome ou e-mail',
    search: 'Buscar',
    redeem: 'Validar',
    no_results: 'Nada encontrado.',
    lists: 'Listas',
    camera_off: 'Sem câmera: digite ou busque abaixo.',
    history: 'Últimas leituras',
    queued_mark: 'na fila',
    ok: 'Válido',
    ok_exit: 'Saída registrada',
    attention: 'Válido: confira antes de liberar',
    reason_invalid: 'Não é ingresso deste evento',
    reason_voided: 'Ingresso cancelado',
    reason_unpaid: 'Não pago',
    reason_already_redeemed: 'Já utilizado',
    reason_product: 'Não vale nesta lista',
    reason_invalid_time: 'Fora do horário válido',
    reason_ambiguous: 'Está em mais de uma lista: escolha uma',
    reason_nonce_conflict: 'Conflito de leitura',
    reason_invalid_scan: 'Recusada pelo servidor',
    why_transferred: 'Transferido para outra pessoa',
    why_older_code: 'Substituído: código antigo',
    tap_to_close: 'Toque para seguir',
  },
}

export const locale = (navigator.languages ?? [navigator.language])
  .find((l) => /^(pt|en)\b/i.test(l))
  ?.toLowerCase()
  .startsWith('pt')
  ? 'pt-BR'
  : 'en'

/** The message of `key` in the page's language. */
export const t = (key) => MESSAGES[locale][key] ?? MESSAGES.en[key] ?? key

/** Fills every `[data-t]` element's text (and `[data-t-placeholder]`'s placeholder). */
export function translate(root) {
  document.documentElement.lang = locale
  for (const el of root.querySelectorAll('[data-t]')) el.textContent = t(el.dataset.t)
  for (const el of root.querySelectorAll('[data-t-placeholder]')) el.placeholder = t(el.dataset.tPlaceholder)
}

export const time = (iso) => (iso ? new Date(iso).toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit', second: '2-digit' }) : t('never'))
