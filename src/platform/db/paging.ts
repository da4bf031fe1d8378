/** Which page of a list to read: `page` is 1-based. */
export type Paging = { page: number; limit: number }

/** One page of rows and how many rows the whole list holds. */
export type Page<T> = { rows: T[]; total: number }

export const offsetOf = ({ page, limit }: Paging) => (page - 1) * limit
