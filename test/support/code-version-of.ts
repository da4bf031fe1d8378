// A scanner's reading of a code's `n`, exactly as docs/transfers.md shows it: keep the two in step.
/** The `n` of a verified code's payload: the code_version (modulo 256) it was signed for, 0 when absent. */
export function codeVersionOf(p: Uint8Array): number {
  if (p[0] !== 1) return JSON.parse(new TextDecoder().decode(p)).n ?? 0 // the JSON layout
  const seat = 52 + p[51]! // the seat's length byte, after the variant
  const end = seat + 1 + p[seat]!
  return end < p.length ? p[end]! : 0
}
