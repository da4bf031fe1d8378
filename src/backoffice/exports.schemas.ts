import { z } from 'zod'
import { ZDateInput, ZInstant } from '../platform/http/schemas.js'
import { EXPORT_FORMATS, EXPORT_STATUSES, EXPORT_TYPES } from '../domain/reports/exports.table.js'

export const ZExport = z
  .object({
    id: z.uuid(),
    type: z.enum(EXPORT_TYPES),
    format: z.enum(EXPORT_FORMATS),
    status: z.enum(EXPORT_STATUSES).describe('`running` while written; `done`: its file is ready; `failed`: ask for a new one'),
    progress: z.number().int().min(0).max(100),
    rows: z.number().int().nullable().describe('Data rows of the file (the header not counted); null until done'),
    sha256: z.string().nullable().describe('Hex SHA-256 of the whole file as served; null until done'),
    expires_at: ZInstant.nullable().describe('When the file is deleted (24 h after done); null until done'),
    created_at: ZInstant,
  })
  .meta({ id: 'AdmExport' })

export const ZCreateExport = z.strictObject({
  type: z.enum(EXPORT_TYPES).describe('`orders`, `tickets`, `checkins` (scans) or `transactions` (the ledger)'),
  format: z.enum(EXPORT_FORMATS).describe('`csv`; `csv_br` (`;`, UTF-8 BOM, decimal commas); `json` (money in centavos)'),
  from: ZDateInput.optional().describe('First day included, in the seller’s time zone'),
  to: ZDateInput.optional().describe('First day not included, in the seller’s time zone'),
  event_id: z.uuid().optional().describe('Only what belongs to this event of the seller'),
})
