import type { FastifyRequest } from 'fastify'
import type { AuditActor } from '../domain/audit/record-audit.js'

/** Who a storefront call acts as, for the audit log: the signed-in customer, else the seller's integration. */
export const storefrontActor = (request: Pick<FastifyRequest, 'seller' | 'customer' | 'id'>): AuditActor =>
  request.customer ? { type: 'customer', id: request.customer.id, traceId: request.id } : { type: 'seller', id: request.seller.id, traceId: request.id }
