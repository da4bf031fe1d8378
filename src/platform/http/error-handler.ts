import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod'
import { isDatabaseUnavailable } from '../db/errors.js'
import { AppError, type ErrorCode, type ErrorDetail } from '../errors.js'

/** Fastify's own errors, translated to the catalogue. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'validation_error',
  FST_ERR_VALIDATION: 'validation_error',
  FST_ERR_BAD_URL: 'not_found',
}

const BY_STATUS: Record<number, ErrorCode> = {
  400: 'validation_error',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'service_unavailable',
}

export type ErrorEnvelope = { code: ErrorCode; message: string; trace_id: string; details?: ErrorDetail[] }

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError) {
  const body: ErrorEnvelope = { code: error.code, message: error.message, trace_id: request.id }
  if (error.details) body.details = error.details
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value)
  // Errors bypass response schemas: the envelope is the same for every route.
  return reply.code(error.status).type('application/json; charset=utf-8').serializer(JSON.stringify).send(body)
}

/** Maps anything thrown to an AppError; unexpected errors become `internal_error`. */
export function toAppError(error: unknown): { appError: AppError; unexpected: boolean } {
  if (error instanceof AppError) return { appError: error, unexpected: false }
  const e = error as FastifyError

  if (hasZodFastifySchemaValidationErrors(e)) {
    const where = e.validationContext ?? 'body'
    const details = e.validation.map((v) => ({
      path: [where === 'body' ? '' : where, ...v.instancePath.split('/').filter(Boolean)].filter(Boolean).join('.'),
      message: v.message ?? 'is invalid',
    }))
    return { appError: new AppError('validation_error', { details }), unexpected: false }
  }
  if (isResponseSerializationError(e)) return { appError: new AppError('internal_error'), unexpected: true }
  if (isDatabaseUnavailable(e)) {
    return { appError: new AppError('service_unavailable', { headers: { 'retry-after': '1' } }), unexpected: false }
  }
  const fromCode = e?.code ? FASTIFY_CODES[e.code] : undefined
  if (fromCode) return { appError: new AppError(fromCode), unexpected: false }
  if (Array.isArray(e?.validation)) {
    const details = e.validation.map((v) => ({ path: v.instancePath.replace(/^\//, '').replaceAll('/', '.'), message: v.message ?? 'is invalid' }))
    return { appError: new AppError('validation_error', { details }), unexpected: false }
  }
  const status = typeof e?.statusCode === 'number' ? e.statusCode : 500
  const byStatus = status < 500 || status === 503 ? BY_STATUS[status] : undefined
  if (byStatus) return { appError: new AppError(byStatus), unexpected: false }
  return { appError: new AppError('internal_error'), unexpected: true }
}

/** One handler for every failure, and one for unknown routes. */
export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error, request, reply) => {
    const { appError, unexpected } = toAppError(error)
    if (unexpected) {
      request.log.error({ err: error }, 'unexpected error')
    } else if (appError.status >= 500) {
      request.log.warn({ err: error, code: appError.code }, appError.message)
    }
    return sendError(request, reply, appError)
  })

  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new AppError('not_found', { message: 'No such route' })),
  )
}
