import type { FastifyRequest } from 'fastify'
import type { AuditActor } from '../domain/audit/record-audit.js'
import { AppError } from '../platform/errors.js'

// Until staff authentication is available every back-office route is refused.
export function requirePermission(_permission: string) {
  return async function requireStaffPermission(_request: FastifyRequest): Promise<void> {
    throw new AppError('unauthorized')
  }
}

/** The member of staff acting, as the audit log records it. */
export function actorOf(request: FastifyRequest): AuditActor {
  return { type: 'staff', id: null, traceId: request.id }
}
