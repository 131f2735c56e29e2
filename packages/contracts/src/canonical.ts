/**
 * Canonical JSON: object keys sorted (by UTF-16 code units, as Array#sort does), undefined members
 * dropped, no whitespace. Hashes (hardware fingerprint, settings hash, scenario version,
 * idempotency body hash) are taken over this form so that key order never changes an identity.
 * It runs on every submission (~36 kB, hundreds of objects of a few shapes), so it is written
 * with plain loops, and the sorted key order of an object shape (its keys in insertion order) is
 * remembered with the keys' JSON prefixes: samples share a handful of shapes, and sorting and
 * quoting their keys again each time was most of the cost (see apps/api/bench/README.md).
 */
type Shape = { keys: string[]; order: string[]; prefixes: string[] };
/** At most this many shapes are remembered (a body of ever new shapes only replaces entries). */
const MAX_SHAPES = 256;
const shapes = new Map<string, Shape>();

function shapeOf(keys: string[]): Shape {
  const id = keys.length === 0 ? '' : `${keys.length}\u0000${keys[0]}`;
  const known = shapes.get(id);
  if (known && known.keys.length === keys.length && known.keys.every((k, i) => k === keys[i])) return known;
  const order = [...keys].sort();
  const shape = { keys, order, prefixes: order.map((k) => JSON.stringify(k) + ':') };
  if (known || shapes.size < MAX_SHAPES) shapes.set(id, shape);
  return shape;
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    // String(n) is JSON.stringify(n) for every finite number, and cheaper.
    if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
    return value === undefined ? 'null' : JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += canonicalJson(value[i]);
    }
    return out + ']';
  }
  const record = value as Record<string, unknown>;
  const { order, prefixes } = shapeOf(Object.keys(record));
  let out = '{';
  let first = true;
  for (let i = 0; i < order.length; i++) {
    const v = record[order[i]!];
    if (v === undefined) continue;
    if (!first) out += ',';
    first = false;
    out += prefixes[i]! + canonicalJson(v);
  }
  return out + '}';
}
