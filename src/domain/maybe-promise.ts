/**
 * Values that are there at once when cached and come later when loaded.
 *
 * Every API request authenticates and most find everything in memory; an
 * `async` chain would still cost a promise and a microtask turn at each step.
 * Code on that path composes with `andThen`, which stays synchronous for as
 * long as its values are.
 */
export type MaybePromise<T> = T | Promise<T>;

/** `fn(value)`, at once when `value` is already there, else once it settles. */
export function andThen<T, R>(value: MaybePromise<T>, fn: (v: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(fn) : fn(value);
}
