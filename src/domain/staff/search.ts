import { asc, desc, type AnyColumn, type SQL } from 'drizzle-orm'

export const SORTS = ['name', '-name', 'created_at', '-created_at'] as const
export type Sort = (typeof SORTS)[number]

/** A page of a list, as repositories take it. */
export type SearchOptions = { q?: string | undefined; sort?: Sort | undefined; page: number; limit: number }

export type Page<T> = { rows: T[]; total: number }

/** The ORDER BY of a sort key, with the id as tie-breaker so that pages never overlap. */
export function orderBy(sort: Sort | undefined, columns: { name: AnyColumn; createdAt: AnyColumn; id: AnyColumn }): SQL[] {
  const key = sort ?? 'name'
  const column = key.endsWith('name') ? columns.name : columns.createdAt
  return [key.startsWith('-') ? desc(column) : asc(column), asc(columns.id)]
}

export const offsetOf = (options: SearchOptions) => (options.page - 1) * options.limit
