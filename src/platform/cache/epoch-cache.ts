/** What every kept value carries: the moment it stops being trusted (epoch milliseconds). */
export type Expiring = { readonly until: number }

export type EpochCacheOptions<V extends Expiring> = {
  maxEntries: number
  /**
   * The group of a kept value, which `forget(group)` drops (a seller's entries). Without it each
   * key is its own group, and forgetting one costs no scan.
   */
  groupOf?: (value: V) => string
  /** A value's weight, for `maxWeight` (an answer's characters); absent, only the count is bounded. */
  weightOf?: (value: V) => number
  maxWeight?: number
  /** False while notices may be missed (the listening connection is down): nothing is served or kept then. */
  trusted: () => boolean
}

/**
 * A bounded memory of what was read from the database, kept coherent by notices: `forget` runs
 * for every notice, and a value read since a moment (`since()`) is kept only if no notice about
 * its group (nor a `clear`) came after that moment, because the reading may predate the change.
 * Bounded in entries and in weight: when full, the oldest entries go (a Map keeps insertion order).
 * The seller authenticator, the availability memo and the catalogue cache are each built of these.
 */
export class EpochCache<V extends Expiring> {
  private readonly entries = new Map<string, V>()
  // A clock that ticks on every forget: a group's last forget, and the last clear, by its ticks.
  private clock = 0
  private clearedAt = 0
  private readonly forgotten = new Map<string, number>()
  private weight = 0

  constructor(private readonly options: EpochCacheOptions<V>) {}

  /** Where a reading starts: pass it to `set`. */
  since(): number {
    return this.clock
  }

  /** The value kept for `key` while it is fresh at `now` and may be trusted. Allocates nothing. */
  get(key: string, now: number): V | undefined {
    const value = this.entries.get(key)
    return value !== undefined && value.until > now && this.options.trusted() ? value : undefined
  }

  /** The value kept for `key`, fresh or not (what an earlier reading found). */
  peek(key: string): V | undefined {
    return this.entries.get(key)
  }

  /** Whether a reading of `group` started at `since` may be kept: no notice about it came since. */
  fresh(group: string, since: number): boolean {
    return this.clearedAt <= since && (this.forgotten.get(group) ?? 0) <= since && this.options.trusted()
  }

  /** Keeps a value read since `since`, unless a notice about its group came meanwhile; answers whether it was kept. */
  set(key: string, value: V, since: number): boolean {
    const { groupOf, weightOf, maxWeight = Infinity, maxEntries } = this.options
    const weight = weightOf ? weightOf(value) : 0
    if (weight > maxWeight || !this.fresh(groupOf ? groupOf(value) : key, since)) return false
    this.delete(key)
    while (this.entries.size > 0 && (this.entries.size >= maxEntries || this.weight + weight > maxWeight)) {
      this.delete(this.entries.keys().next().value as string)
    }
    this.entries.set(key, value)
    this.weight += weight
    return true
  }

  /** A notice about `group`: its entries go (those `which` picks, when given), and readings of it under way are not kept. */
  forget(group: string, which?: (value: V) => boolean): void {
    const { groupOf, maxEntries } = this.options
    // Bounded too: past the limit, every reading under way is refused instead (as after a clear).
    if (this.forgotten.size >= maxEntries) {
      this.forgotten.clear()
      this.clearedAt = this.clock
    }
    this.forgotten.set(group, ++this.clock)
    if (!groupOf) {
      const value = this.entries.get(group)
      if (value !== undefined && (!which || which(value))) this.delete(group)
      return
    }
    for (const [key, value] of this.entries) if (groupOf(value) === group && (!which || which(value))) this.delete(key)
  }

  /** Notices may have been missed: everything goes, and no reading under way is kept. */
  clear(): void {
    this.clearedAt = ++this.clock
    this.forgotten.clear()
    this.entries.clear()
    this.weight = 0
  }

  /** What is kept now (for tests and metrics). */
  size(): { entries: number; weight: number } {
    return { entries: this.entries.size, weight: this.weight }
  }

  private delete(key: string) {
    const value = this.entries.get(key)
    if (value === undefined) return
    this.entries.delete(key)
    if (this.options.weightOf) this.weight -= this.options.weightOf(value)
  }
}
