/**
 * An email as every lookup and every limit compares it: without regard to case or surrounding
 * spaces. The address is kept as typed for display; the unique indexes are on `lower(email)`.
 */
export const normalizeEmail = (email: string) => email.trim().toLowerCase()
