import { sql } from 'drizzle-orm'
import { index, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { staffPermissions } from './permissions.table.js'
import { staffRoles } from './roles.table.js'

/** A member of staff. The email is kept as given and unique case-insensitively. */
export const staffUsers = pgTable(
  'staff_users',
  {
    id: uuid().primaryKey().defaultRandom(),
    name: text().notNull(),
    email: text().notNull(),
    /** argon2id; never leaves the domain layer. */
    passwordHash: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('staff_users_email_key').on(sql`lower(${t.email})`)],
)

export const staffUserRoles = pgTable(
  'staff_user_roles',
  {
    userId: uuid()
      .notNull()
      .references(() => staffUsers.id, { onDelete: 'cascade' }),
    roleId: uuid()
      .notNull()
      .references(() => staffRoles.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.roleId] }), index('staff_user_roles_role_idx').on(t.roleId)],
)

/** Permissions granted to a user directly, besides those of its roles. */
export const staffUserPermissions = pgTable(
  'staff_user_permissions',
  {
    userId: uuid()
      .notNull()
      .references(() => staffUsers.id, { onDelete: 'cascade' }),
    permissionId: uuid()
      .notNull()
      .references(() => staffPermissions.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.permissionId] }), index('staff_user_permissions_permission_idx').on(t.permissionId)],
)
