import type { Db } from '../../platform/db/database.js'
import { revokeUserSessions } from './sessions.repo.js'

/**
 * Revokes every session of the user: its refresh tokens stop working at once and so do its
 * access tokens, which name their session. Answers how many sessions were live.
 */
export const logoutStaff = (db: Db, userId: string): Promise<number> => revokeUserSessions(db, userId, 'logout')
