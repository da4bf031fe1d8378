// The one schema both drivers share. Each aggregate keeps its tables beside its code;
// this barrel is what drizzle, drizzle-kit and the relational query API see.
export * from '../mail/outbox.table.js'
export * from '../../domain/audit/audit-log.table.js'
