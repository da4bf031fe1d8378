import type { FastifyInstance } from 'fastify'
import { buildApp, type BuildAppOptions } from '../../src/app.js'
import { benchRoutes, benchStorefrontRoutes } from './routes.js'

/**
 * The product's app (`buildApp`, exactly as `npm start` and the image build it) with the
 * benchmark's baseline and seeding routes added before it is ready: `/bench/*`, and
 * `/stf/v1/bench/ping` behind the storefront's authentication. Nothing of this is in the product.
 */
export async function buildBenchApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const app = await buildApp(options)
  await app.register(benchRoutes, { prefix: '/bench' })
  await app.register(benchStorefrontRoutes, { prefix: '/stf/v1' })
  return app
}
