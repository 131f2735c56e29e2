/**
 * A registry that must hold one entry per name of a contract's list (step actions, metric
 * sources): a call does not compile while a name has no entry — its argument list then asks for a
 * sentence naming the missing one — so a new name in contracts cannot be forgotten here.
 */
type Missing<N extends string, E> = Exclude<N, E>;

export function completeRegistry<N extends string>() {
  return <K extends string, const L extends readonly Record<K, N>[]>(
    key: K,
    list: L,
    ..._complete: [Missing<N, L[number][K]>] extends [never] ? [] : [`no entry for "${Missing<N, L[number][K]>}"`]
  ): ReadonlyMap<string, L[number]> => new Map(list.map((entry) => [entry[key], entry]));
}
