import { boolean, index, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { staffPermissions } from './permissions.table.js'

/** A named set of permissions granted to users together. */
export const staffRoles = pgTable('staff_roles', {
  id: uuid().primaryKey().defaultRandom(),
  name: text().notNull().unique('staff_roles_name_key'),
  description: text().notNull().default(''),
  /** The built-in `admin` role holds every permission and cannot be renamed, deleted or lose one. */
  builtIn: boolean().notNull().default(false),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
})

export const staffRolePermissions = pgTable(
  'staff_role_permissions',
  {
    roleId: uuid()
      .notNull()
      .references(() => staffRoles.id, { onDelete: 'cascade' }),
    permissionId: uuid()
      .notNull()
      .references(() => staffPermissions.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.roleId, t.permissionId] }), index('staff_role_permissions_permission_idx').on(t.permissionId)],
)
