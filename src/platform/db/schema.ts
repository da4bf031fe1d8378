// The one schema both drivers share. Each aggregate keeps its tables beside its code;
// this barrel is what drizzle, drizzle-kit and the relational query API see.
export * from '../mail/outbox.table.js'
export * from '../../domain/audit/audit-log.table.js'
export * from '../../domain/staff/permissions.table.js'
export * from '../../domain/staff/roles.table.js'
export * from '../../domain/staff/users.table.js'
export * from '../../domain/staff/sessions.table.js'
export * from '../../domain/staff/password-resets.table.js'
