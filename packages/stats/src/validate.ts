/** Throws a RangeError naming `name` unless `values` is a non-empty array of finite numbers. */
export function assertSample(values: readonly number[], name: string, minLength = 1): void {
  if (!Array.isArray(values)) {
    throw new RangeError(`${name} must be an array of finite numbers`);
  }
  if (values.length === 0) throw new RangeError(`${name} must not be empty`);
  if (values.length < minLength) {
    throw new RangeError(`${name} must have at least ${minLength} values (got ${values.length})`);
  }
  values.forEach((value, index) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new RangeError(`${name}[${index}] must be a finite number (got ${String(value)})`);
    }
  });
}

/** Throws a RangeError naming `name` unless 0 < `level` < 1. */
export function assertProbability(level: number, name: string): void {
  if (typeof level !== 'number' || !(level > 0 && level < 1)) {
    throw new RangeError(`${name} must be a number strictly between 0 and 1 (got ${String(level)})`);
  }
}
