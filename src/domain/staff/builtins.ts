/**
 * Reference data every deployment has. Restored on every start by `ensureBuiltins`, so a
 * database that lost it (or a fresh one) gets it back; protected from renaming and deletion.
 */
export const BUILT_IN_PERMISSIONS = [
  { name: 'iam.users.read', description: 'Read staff users, their roles and permissions' },
  { name: 'iam.users.write', description: 'Create, update and delete staff users and grant them permissions' },
  { name: 'iam.roles.read', description: 'Read roles and their permissions' },
  { name: 'iam.roles.write', description: 'Create, update and delete roles and their permissions' },
  { name: 'iam.permissions.read', description: 'Read permissions' },
  { name: 'iam.permissions.write', description: 'Create, update and delete permissions' },
  { name: 'adm.sellers.read', description: 'Read sellers, API keys and affiliates' },
  { name: 'adm.sellers.write', description: 'Manage sellers, API keys and affiliates' },
  { name: 'adm.catalog.read', description: 'Read events, inventories and coupons' },
  { name: 'adm.catalog.write', description: 'Manage events, inventories and coupons' },
  { name: 'adm.orders.read', description: 'Read orders' },
  { name: 'adm.orders.write', description: 'Cancel orders' },
  { name: 'adm.checkin.read', description: 'Read scanner devices, check-in lists, their status and scans' },
  { name: 'adm.checkin.write', description: 'Create and revoke scanner devices; manage check-in lists' },
] as const

export type BuiltInPermission = (typeof BUILT_IN_PERMISSIONS)[number]['name']

export const BUILT_IN_PERMISSION_NAMES: readonly string[] = BUILT_IN_PERMISSIONS.map((p) => p.name)

/**
 * The built-in role holding every permission: the built-ins, and each permission created
 * later (granted to it on creation). None can be taken from it.
 */
export const ADMIN_ROLE = { name: 'admin', description: 'Full access: every permission' } as const
