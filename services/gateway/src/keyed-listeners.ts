// Listeners grouped by a key (a ticket, a company): added with a function that removes them,
// called for one key or for all. A key's set goes away with its last listener, so keys seen
// once do not accumulate.
export class KeyedListeners<T> {
  private readonly byKey = new Map<string, Set<(value: T) => void>>();

  /** Calls `listener` with every value emitted for `key` until the returned function is called. */
  add(key: string, listener: (value: T) => void): () => void {
    let set = this.byKey.get(key);
    if (!set) this.byKey.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.byKey.get(key) === set) this.byKey.delete(key);
    };
  }

  emit(key: string, value: T): void {
    for (const listener of this.byKey.get(key) ?? []) listener(value);
  }

  emitAll(value: T): void {
    for (const set of this.byKey.values()) for (const listener of set) listener(value);
  }
}
