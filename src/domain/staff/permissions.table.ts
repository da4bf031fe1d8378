import { boolean, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'

/** A named capability that routes check, such as `adm.sellers.read`. */
export const staffPermissions = pgTable('staff_permissions', {
  id: uuid().primaryKey().defaultRandom(),
  name: text().notNull().unique('staff_permissions_name_key'),
  description: text().notNull().default(''),
  /** Built-in permissions are restored on start and cannot be renamed or deleted. */
  builtIn: boolean().notNull().default(false),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
})
