import type { AuditActor } from '../audit/record-audit.js'

/** The authenticated member of staff on whose behalf a service acts. */
export type StaffActor = {
  id: string
  /** Effective permission names, read from the database for this request. */
  permissions: ReadonlySet<string>
  traceId?: string | undefined
}

export const auditActorOf = (actor: StaffActor): AuditActor => ({ type: 'staff', id: actor.id, traceId: actor.traceId ?? null })
