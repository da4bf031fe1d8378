import type { FastifyRequest } from 'fastify'
import type { AuditActor } from '../domain/audit/record-audit.js'
import { auditActorOf } from '../domain/staff/actor.js'
import { staffActorOf } from '../iam/staff-auth.js'

/** The member of staff making the request, as the audit log records it (with the trace id). */
export const actorOf = (request: FastifyRequest): AuditActor => auditActorOf(staffActorOf(request))
