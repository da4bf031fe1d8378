import { ForbiddenAddressError, resolveAllowed } from '../../platform/net/address-guard.js'
import { AppError } from '../../platform/errors.js'

export type EndpointUrlPolicy = {
  /** `http://` URLs are accepted too (WEBHOOK_ALLOW_INSECURE). */
  allowInsecure: boolean
  /** Hosts may resolve to loopback, private, link-local or metadata addresses (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate: boolean
}

const refuse = (message: string) => new AppError('validation_error', { details: [{ path: 'url', message }] })

/**
 * Checks an endpoint URL before it is saved: https (or http when allowed), no credentials, and a
 * host whose every address is public. The worker checks the addresses again at each delivery,
 * as DNS answers change. Never call inside a transaction: it waits for DNS.
 */
export async function checkEndpointUrl(value: string, policy: EndpointUrlPolicy): Promise<string> {
  const url = new URL(value)
  if (url.protocol !== 'https:' && !(policy.allowInsecure && url.protocol === 'http:')) {
    throw refuse(policy.allowInsecure ? 'must be an http or https URL' : 'must be an https URL')
  }
  if (url.username || url.password) throw refuse('must not carry credentials')
  try {
    await resolveAllowed(url.hostname, policy.allowPrivate)
  } catch (error) {
    if (error instanceof ForbiddenAddressError) throw refuse('must not resolve to a loopback, private, link-local or metadata address')
    throw refuse('has a host that does not resolve')
  }
  return url.toString()
}
