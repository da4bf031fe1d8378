/**
 * A UUID's text form, of any version and either case: what an id from a token, a credential or a
 * cursor must look like before it reaches a query (where a malformed one would fail as a 500).
 */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
