// The receiver's check of a webhook, exactly as docs/webhooks.md shows it: keep the two in step.
import { createHmac, timingSafeEqual } from 'node:crypto'

export function verifyWebhook(rawBody: string, header: string, secret: string, toleranceSeconds = 300): boolean {
  const parts = header.split(',').map((p) => p.split('='))
  const t = Number(parts.find(([k]) => k === 't')?.[1])
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > toleranceSeconds) return false
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest()
  return parts.some(([k, v]) => k === 'v1' && v?.length === 64 && timingSafeEqual(Buffer.from(v, 'hex'), expected))
}
