/**
 * `fn` with its results remembered by key, all forgotten at once past `max` keys: for pure functions called
 * over and over with the same few thousand arguments (a stemmer, a schema per list of names).
 */
export function memoized<A, R>(fn: (arg: A) => R, key: (arg: A) => string, max: number): (arg: A) => R {
  const memo = new Map<string, R>();
  return (arg) => {
    const k = key(arg);
    let value = memo.get(k);
    if (value === undefined) {
      if (memo.size >= max) memo.clear();
      value = fn(arg);
      memo.set(k, value);
    }
    return value;
  };
}
