import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A health or readiness probe: its request lines are logged at debug, not info. */
    probe?: boolean
  }
}

const isProbe = (request: FastifyRequest) => request.routeOptions.config?.probe === true

/**
 * Fastify's request logging (`incoming request`, `request completed` at info, with the trace id
 * as `trace_id`), except for probes: an orchestrator asks for health every few seconds, and those
 * lines would bury everything else. A probe's lines go to debug while it answers 2xx; a failing
 * probe is logged like any other request.
 */
export class RequestLogController extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'trace_id' })
  }

  override incomingRequest(request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>) {
    if (!isProbe(request)) return super.incomingRequest(request, reply, metadata)
    if (!this.isLogDisabled(request)) request.log.debug({ req: request }, 'incoming request')
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>) {
    if (!isProbe(request) || error || reply.statusCode >= 300) return super.requestCompleted(error, request, reply, metadata)
    if (!this.isLogDisabled(request)) reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed')
  }
}
