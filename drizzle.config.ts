import { defineConfig } from 'drizzle-kit'

// One schema and one migration history serve both drivers: PostgreSQL via `pg` and the
// embedded PGlite. `npm run db:generate` writes a new migration after a table changes.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/domain/schema.ts',
  out: './migrations',
  casing: 'snake_case',
})
