// The one schema both drivers share. Each aggregate keeps its tables beside its code;
// this barrel is what drizzle, drizzle-kit and the relational query API see.
export * from '../mail/outbox.table.js'
export * from '../../domain/audit/audit-log.table.js'
export * from '../../domain/sellers/sellers.table.js'
export * from '../../domain/sellers/api-keys.table.js'
export * from '../../domain/sellers/affiliates.table.js'
export * from '../../domain/catalog/events.table.js'
export * from '../../domain/catalog/inventories.table.js'
export * from '../../domain/coupons/coupons.table.js'
export * from '../../domain/baskets/baskets.table.js'
export * from '../../domain/idempotency/idempotency-keys.table.js'
export * from '../../domain/orders/orders.table.js'
