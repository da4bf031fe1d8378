import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { authenticateStaff } from './staff-auth.js'
import { authRoutes } from './auth.routes.js'
import { passwordRoutes } from './password.routes.js'
import { permissionRoutes } from './permissions.routes.js'
import { roleRoutes } from './roles.routes.js'
import { serviceRoutes } from './service.routes.js'
import { userRoutes } from './users.routes.js'

/**
 * `/iam/v1`: staff identity and access. Health, info, login, refresh and password recovery
 * need no token; everything else sits behind `authenticateStaff` and a permission check.
 */
export const iam: FastifyPluginAsyncZod = async (app) => {
  await app.register(serviceRoutes)
  await app.register(authRoutes, { prefix: '/auth' })
  await app.register(passwordRoutes, { prefix: '/password' })
  await app.register(async (secured) => {
    secured.addHook('onRequest', authenticateStaff)
    await secured.register(userRoutes, { prefix: '/users' })
    await secured.register(permissionRoutes, { prefix: '/permissions' })
    await secured.register(roleRoutes, { prefix: '/roles' })
  })
}
