import { randomUUID } from 'node:crypto'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod'
import { isDatabaseUnavailable } from '../db/errors.js'
import { AppError, type ErrorCode, type ErrorDetail, type ErrorDetails } from '../errors.js'
import { collectAllowedMethods } from './allowed-methods.js'

/** Fastify's own errors, translated to the catalogue. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'validation_error',
  FST_ERR_VALIDATION: 'validation_error',
  // A path that does not decode (e.g. `%ED%A0%80`) or a parameter beyond the router's limit: a malformed id.
  FST_ERR_BAD_URL: 'validation_error',
  FST_ERR_MAX_PARAM_LENGTH: 'validation_error',
}

const BY_STATUS: Record<number, ErrorCode> = {
  400: 'validation_error',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'service_unavailable',
}

export type ErrorEnvelope = { code: ErrorCode; message: string; trace_id: string; details?: ErrorDetails }

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError) {
  const body: ErrorEnvelope = { code: error.code, message: error.message, trace_id: request.id }
  if (error.details) body.details = error.details
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value)
  // Also for errors raised before the request's hooks ran (see `frameworkErrors`).
  reply.header('x-trace-id', request.id)
  // Errors bypass response schemas: the envelope is the same for every route.
  return reply.code(error.status).type('application/json; charset=utf-8').serializer(JSON.stringify).send(body)
}

/** Maps anything thrown to an AppError; unexpected errors become `internal_error`. */
export function toAppError(error: unknown): { appError: AppError; unexpected: boolean } {
  if (error instanceof AppError) return { appError: error, unexpected: false }
  const e = error as FastifyError

  if (hasZodFastifySchemaValidationErrors(e)) {
    const where = e.validationContext ?? 'body'
    const pathOf = (segments: string[]) => [where === 'body' ? '' : where, ...segments].filter(Boolean).join('.')
    const details = e.validation.flatMap((v): ErrorDetail[] => {
      const segments = v.instancePath.split('/').filter(Boolean)
      // A strict object names its unknown fields in the issue; each one is its own detail, at its own path.
      const unknown = v.keyword === 'unrecognized_keys' ? (v.params as { keys?: unknown }).keys : undefined
      if (Array.isArray(unknown) && unknown.length > 0) {
        return unknown.map((key) => ({ path: pathOf([...segments, String(key)]), message: 'is not a known field' }))
      }
      return [{ path: pathOf(segments), message: v.message ?? 'is invalid' }]
    })
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

/**
 * Fastify's `frameworkErrors` option: failures the router meets before any hook runs (a path
 * that does not decode, a parameter over `maxParamLength`) answer in the envelope too.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  return sendError(request, reply, toAppError(error).appError)
}

/**
 * Fastify's `clientErrorHandler` option: a request Node's HTTP parser refuses (a NUL or a
 * newline in a header, a malformed request line, headers over the size limit) gets a
 * 400 `validation_error` envelope instead of Node's bare answer; the connection is closed.
 * One whose request did not arrive within Node's request timeout is closed without an answer
 * (the catalogue has no 408).
 */
export function clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  if (!socket.writable || error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return void socket.destroy(error)
  const traceId = randomUUID()
  const message = error.code === 'HPE_HEADER_OVERFLOW' ? 'The request headers are too large' : 'The request is not valid HTTP'
  const body = JSON.stringify({ code: 'validation_error', message, trace_id: traceId } satisfies ErrorEnvelope)
  this.log.debug({ err: error, trace_id: traceId }, 'malformed request')
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Trace-Id: ${traceId}\r\nConnection: close\r\n\r\n${body}`,
  )
}

/**
 * One handler for every failure, and one for unknown routes: 405 `method_not_allowed` with
 * `Allow` for a known path asked with another method, else 404. Register before any route.
 */
export function registerErrorHandling(app: FastifyInstance) {
  const routes = collectAllowedMethods(app)
  app.setErrorHandler((error, request, reply) => {
    const { appError, unexpected } = toAppError(error)
    if (unexpected) {
      request.log.error({ err: error }, 'unexpected error')
    } else if (appError.status >= 500) {
      request.log.warn({ err: error, code: appError.code }, appError.message)
    }
    return sendError(request, reply, appError)
  })

  app.setNotFoundHandler((request, reply) => {
    const allowed = routes.allowedFor(request.url.split('?', 1)[0]!)
    if (allowed.length > 0) return sendError(request, reply, new AppError('method_not_allowed', { headers: { allow: allowed.join(', ') } }))
    return sendError(request, reply, new AppError('not_found', { message: 'No such route' }))
  })
}
