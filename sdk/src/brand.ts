/**
 * `instanceof` across two copies of the SDK (the dual-package hazard). The package ships an ES
 * module build and a CommonJS one; Node ≥ 20.19 / 22.12 loads the ES build for both `import` and
 * `require` (the "module-sync" condition), but an older Node, or a bundle that pulls in both, can
 * hold both copies at once: an error thrown by one copy's client is then caught with the other
 * copy's classes. So each error class is branded with its name under a global symbol, every
 * instance carries the brands of its class chain, and a branded class's `instanceof` also accepts
 * an instance of the same-branded class of the other copy.
 */
const BRANDS = Symbol.for('@blueline/sdk:brands');
const brandOf = new WeakMap<object, string>();

function hasInstance(this: object, value: unknown): boolean {
  if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
  const name = brandOf.get(this);
  const brands = typeof value === 'object' && value !== null ? (value as { [BRANDS]?: unknown })[BRANDS] : undefined;
  return name !== undefined && Array.isArray(brands) && brands.includes(name);
}

/** Names a class for `instanceof` across copies (call once per class, after its declaration). */
export function brand(cls: abstract new (...args: never[]) => object, name: string): void {
  brandOf.set(cls, name);
  Object.defineProperty(cls, Symbol.hasInstance, { value: hasInstance, configurable: true });
}

/** Marks an instance with the brands of `target` (its `new.target`) and of the classes it extends. */
export function stamp(instance: object, target: object): void {
  const names: string[] = [];
  for (let c: object | null = target; c && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    const name = brandOf.get(c);
    if (name) names.push(name);
  }
  Object.defineProperty(instance, BRANDS, { value: names });
}
