import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { z } from 'zod'
import type { Db } from '../platform/db/database.js'
import { errorResponses, pageMeta, type TPageQuery, ZPageQuery } from '../platform/http/schemas.js'
import type { Page, SearchOptions } from '../domain/staff/search.js'
import { STAFF_SECURITY, TAGS } from './common.schemas.js'
import { requirePermission } from './staff-auth.js'

export type ListingOptions<Row, Search extends SearchOptions> = {
  /** The plural noun of the summaries: `users`, `roles`, `permissions`. */
  noun: string
  /** The permission both routes need. */
  permission: string
  /** What `q` (and any other search field) matches, for the search route's description. */
  matches: string
  /** The search body: `ZSearchRequest`, or an extension of it. */
  searchRequest: z.ZodType<Search>
  /** The page of items, `{data, meta}`. */
  list: z.ZodType
  search: (db: Db, options: Search) => Promise<Page<Row>>
  present: (row: Row) => unknown
}

/**
 * `GET ''` (a page sorted by name) and `POST /search` of one IAM resource: users, roles and
 * permissions list and search alike, through their search service.
 */
export function listingRoutes<Row, Search extends SearchOptions>(options: ListingOptions<Row, Search>): FastifyPluginAsyncZod {
  const { noun, permission, search, present } = options
  const Noun = noun.charAt(0).toUpperCase() + noun.slice(1)
  const common = { tags: TAGS, security: STAFF_SECURITY, response: { 200: options.list, ...errorResponses(400, 401, 403) } }
  const answer = async (db: Db, query: TPageQuery & Search) => {
    const page = await search(db, query)
    return { data: page.rows.map(present), meta: pageMeta(query, page.rows.length, page.total) }
  }
  return async (app) => {
    const read = requirePermission(permission)
    app.get(
      '',
      {
        onRequest: read,
        schema: {
          ...common,
          operationId: `list${Noun}`,
          summary: `List ${noun}`,
          description: `Needs \`${permission}\`. Sorted by name.`,
          querystring: ZPageQuery,
        },
      },
      async (request) => answer(app.db, request.query as TPageQuery & Search),
    )
    app.post(
      '/search',
      {
        onRequest: read,
        schema: {
          ...common,
          operationId: `search${Noun}`,
          summary: `Search ${noun}`,
          description: `Needs \`${permission}\`. ${options.matches}`,
          body: options.searchRequest,
        },
      },
      async (request) => answer(app.db, request.body as TPageQuery & Search),
    )
  }
}
