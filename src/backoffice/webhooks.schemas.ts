import { z } from 'zod'
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../domain/webhooks/webhooks.repo.js'
import { WEBHOOK_EVENT_TYPES } from '../domain/webhooks/webhooks.table.js'
import { OUTBOX_STATUSES } from '../platform/outbox/lease.js'
import { iso } from '../platform/http/schemas.js'
import { AT_LEAST_ONE, atLeastOneField, isoOrNull, ZInstant } from './common.schemas.js'

export const ZWebhookDeliveryParams = z.object({ id: z.uuid(), delivery_id: z.uuid() })

const ZEventType = z.enum(WEBHOOK_EVENT_TYPES)

const ZUrl = z
  .url({ protocol: /^https?$/, message: 'must be an https URL' })
  .max(2000)
  .describe(
    'Where events are POSTed: https (http only with `WEBHOOK_ALLOW_INSECURE=true`), on a host that resolves to public addresses only ' +
      '(no loopback, private, link-local or metadata address, unless `WEBHOOK_ALLOW_PRIVATE=true`). Checked again at every delivery.',
  )

const ZEvents = z
  .array(ZEventType)
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length)
  .nullable()
  .describe('The event types sent; null or absent: every type, present and future')

const ZDescription = z.string().trim().max(500).nullable()

export const ZWebhook = z
  .object({
    id: z.uuid(),
    seller_id: z.uuid(),
    url: z.string(),
    events: z.array(ZEventType).nullable().describe('null: every event type'),
    description: z.string().nullable(),
    active: z.boolean(),
    disabled_reason: z.string().nullable().describe('Why the platform turned the endpoint off (every delivery failed for 3 days); null otherwise'),
    created_at: ZInstant,
    updated_at: ZInstant,
  })
  .meta({ id: 'AdmWebhook' })

export const ZWebhookWithSecret = ZWebhook.extend({
  secret: z
    .string()
    .describe(
      'The signing secret (`whsec_...`), the HMAC key of `Boxoffice-Signature`. Shown this once: it is stored nowhere and cannot be read again, only rotated.',
    ),
}).meta({ id: 'AdmWebhookWithSecret' })

export const ZCreateWebhook = z.strictObject({
  url: ZUrl,
  events: ZEvents.optional(),
  description: ZDescription.optional(),
  active: z.boolean().optional().describe('Default true'),
})

export const ZUpdateWebhook = z
  .strictObject({
    url: ZUrl.optional(),
    events: ZEvents.optional(),
    description: ZDescription.optional(),
    active: z
      .boolean()
      .optional()
      .describe('false: its pending deliveries end (failed) and no event is queued for it; true: it receives again and `disabled_reason` is cleared'),
  })
  .refine(atLeastOneField, AT_LEAST_ONE)

export const ZWebhookDelivery = z
  .object({
    id: z.uuid(),
    event_id: z.uuid().describe('The `Boxoffice-Event-Id`: the same for every delivery of the event, redeliveries included'),
    type: ZEventType,
    attempt: z.number().int().describe('Attempts made so far'),
    status: z.enum(OUTBOX_STATUSES),
    response_status: z.number().int().nullable().describe("The receiver's last HTTP status; null when it did not answer"),
    duration_ms: z.number().int().nullable().describe('How long the last attempt took'),
    error: z.string().nullable().describe('Why the last attempt failed'),
    next_attempt_at: ZInstant.nullable().describe('When it is tried next; null unless pending'),
    created_at: ZInstant,
  })
  .meta({ id: 'AdmWebhookDelivery' })

export const ZPingAccepted = z.object({ event_id: z.uuid() }).meta({ id: 'AdmWebhookPing' })

export const toWebhook = (row: WebhookEndpointRow) => ({
  id: row.id,
  seller_id: row.sellerId,
  url: row.url,
  events: row.events as (typeof WEBHOOK_EVENT_TYPES)[number][] | null,
  description: row.description,
  active: row.active,
  disabled_reason: row.disabledReason,
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
})

export const toWebhookDelivery = (row: WebhookDeliveryRow) => ({
  id: row.id,
  event_id: row.eventId,
  type: row.type as (typeof WEBHOOK_EVENT_TYPES)[number],
  attempt: row.attempts,
  status: row.status,
  response_status: row.responseStatus,
  duration_ms: row.durationMs,
  error: row.lastError,
  next_attempt_at: row.status === 'pending' ? isoOrNull(row.nextAttemptAt) : null,
  created_at: iso(row.createdAt),
})
