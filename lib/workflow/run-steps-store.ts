/**
 * The storage behind `RunState.steps` (issue 28): a persistent map (immutable.js, structural
 * sharing), so a transition costs O(log n) instead of copying every step's record — a 1,000-step
 * chain otherwise spends its time copying. Readers still see a plain, read-only record (a Proxy
 * view with the keys in the same order a plain object would have), which JSON, spreads,
 * `Object.entries` and `hasOwn` treat as before. A state read back from JSON has a plain record;
 * it is indexed on its first transition.
 */
import { Map as PMap } from "immutable";

export interface StepsStore<V> {
  readonly map: PMap<string, V>;
  /** Own keys in plain-object order (fixed for a run: transitions only update existing steps). */
  readonly keys: readonly string[];
  /**
   * Indexes derived from the values (the scheduler's, per graph: run-schedule.ts), kept up to
   * date by each transition so they are never rebuilt. A cache: filled on first use.
   */
  readonly derived: Map<object, Derived<V>>;
}

/** An index over a store's values, updated incrementally when one value changes. */
export interface Derived<V> {
  next(key: string, before: V, after: V, lookup: (key: string) => V | undefined): Derived<V>;
}

type Rec<V> = Readonly<Record<string, V>>;

const stores = new WeakMap<object, StepsStore<unknown>>();
const objectProto = Object.prototype as unknown as Record<PropertyKey, unknown>;

/** The store behind a view, or a plain record indexed (once per record). */
export function storeOf<V>(record: Rec<V>): StepsStore<V> {
  let store = stores.get(record) as StepsStore<V> | undefined;
  if (!store) {
    const keys = Object.keys(record);
    store = {
      map: PMap(keys.map((k) => [k, record[k]!] as [string, V])),
      keys,
      derived: new Map(),
    };
    stores.set(record, store);
  }
  return store;
}

/** Own value of a record (view or plain), O(log n) for views. */
export function ownValue<V>(record: Rec<V>, key: string): V | undefined {
  const store = stores.get(record) as StepsStore<V> | undefined;
  if (store) return store.map.get(key);
  return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}

/** The store with one existing key set to a new value. */
export function withValue<V>(store: StepsStore<V>, key: string, value: V): StepsStore<V> {
  const map = store.map.set(key, value);
  const derived = new Map<object, Derived<V>>();
  const before = store.map.get(key)!;
  const lookup = (k: string) => map.get(k);
  for (const [owner, d] of store.derived) derived.set(owner, d.next(key, before, value, lookup));
  return { map, keys: store.keys, derived };
}

/**
 * A read-only record over `keys`: a key's value is `lookup(key)` (undefined = not own). Writes
 * throw in strict mode, as on a frozen object.
 */
export function recordView<V>(
  keys: readonly string[],
  lookup: (key: string) => V | undefined,
  store?: StepsStore<V>,
): Rec<V> {
  const own = (key: PropertyKey) => (typeof key === "string" ? lookup(key) : undefined);
  const view = new Proxy({} as Rec<V>, {
    get: (_t, key) => {
      const v = own(key);
      return v !== undefined ? v : objectProto[key];
    },
    has: (_t, key) => own(key) !== undefined || key in objectProto,
    ownKeys: () => [...keys],
    getOwnPropertyDescriptor: (_t, key) => {
      const value = own(key);
      return value === undefined
        ? undefined
        : { value, writable: false, enumerable: true, configurable: true };
    },
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
  });
  if (store) stores.set(view, store);
  return view;
}

/** A view of a store, itself usable as the next transition's base. */
export function storeView<V>(store: StepsStore<V>): Rec<V> {
  return recordView(store.keys, (k) => store.map.get(k), store);
}
