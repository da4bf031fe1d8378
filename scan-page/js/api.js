/**
 * The page's only way to the product: `/chk/v1`, beside `/scan/` on this origin, with the
 * device token in the Authorization header (never in an address).
 */

/** The network is gone, the server does not answer in time, or it cannot serve now. */
export class Offline extends Error {}
/** The device token is refused: the device was revoked (or its seller disabled). */
export class Revoked extends Error {}
/** Any other refusal, with the error envelope's `code`. */
export class Refused extends Error {
  constructor(status, body) {
    super(body?.message ?? `HTTP ${status}`)
    this.status = status
    this.code = body?.code
  }
}

const base = new URL('../chk/v1', document.baseURI).pathname

/** Calls `/chk/v1{path}`; answers its JSON, or throws Offline, Revoked or Refused. */
export async function call(path, { token, method = 'GET', body, timeoutMs = 5000 } = {}) {
  let response
  try {
    response = await fetch(base + path, {
      method,
      headers: { ...(token ? { authorization: `Device ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      cache: 'no-store',
      signal: AbortSignal.timeout(timeoutMs),
    })
  } catch (error) {
    throw new Offline(error?.message)
  }
  if (response.status >= 500) throw new Offline(`HTTP ${response.status}`)
  const json = await response.json().catch(() => null)
  if (response.status === 401 && token) throw new Revoked()
  if (!response.ok) throw new Refused(response.status, json)
  return json
}
