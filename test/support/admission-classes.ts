import Fastify, { type FastifyPluginAsync } from 'fastify'
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod'

/**
 * The admission class each route of `plugins` declares (`config.admission`), keyed
 * `POST /stf/v1/baskets`, as registered under `prefix` in an app of their own: the routes are
 * only declared, none is called.
 */
export async function admissionClasses(prefix: string, ...plugins: FastifyPluginAsync[]): Promise<Map<string, 'first' | 'later'>> {
  const classes = new Map<string, 'first' | 'later'>()
  const app = Fastify()
  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)
  app.addHook('onRoute', (route) => {
    const admission = route.config?.admission
    if (admission) for (const method of [route.method].flat()) classes.set(`${method} ${route.url}`, admission)
  })
  for (const plugin of plugins) await app.register(plugin, { prefix })
  await app.ready()
  await app.close()
  return classes
}
