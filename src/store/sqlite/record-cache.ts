/**
 * Records already read, kept while the vault is unchanged: a search hydrating 100 hits reads about
 * 110 sections, their documents and 400 chunks, and in a server or a batch of queries most of them
 * were read by an earlier query. Each kind is a map from key to record (or `null`: not live),
 * valid for one data version (the store's `version()`: its own writes and other connections'
 * commits both change it); any other version empties every map first.
 *
 * Bounded: each map holds at most `max` keys; past that the oldest entries go first (insertion
 * order). Records are frozen (documents' `meta` too), so a caller cannot change what the next
 * caller reads.
 */
export class RecordCache<K extends string, V> {
  private readonly maps = new Map<K, Map<string, V | null>>();
  private version = Number.NaN;

  constructor(private readonly max = 20_000) {}

  /** The map for `kind` at `version` (emptied when the version moved). */
  at(version: number, kind: K): Map<string, V | null> {
    if (version !== this.version) {
      this.maps.clear();
      this.version = version;
    }
    let m = this.maps.get(kind);
    if (m === undefined) this.maps.set(kind, (m = new Map()));
    return m;
  }

  /** Remember `value` under `key`, dropping the oldest keys past the bound. */
  put(map: Map<string, V | null>, key: string, value: V | null): void {
    map.delete(key);
    map.set(key, value);
    while (map.size > this.max) map.delete(map.keys().next().value!);
  }
}

/** Freeze a record and its plain-object or array fields. */
export function frozen<T extends object>(record: T): T {
  for (const v of Object.values(record)) if (typeof v === 'object' && v !== null) Object.freeze(v);
  return Object.freeze(record);
}
