/**
 * Canonical JSON: object keys sorted (by UTF-16 code units, as Array#sort does), undefined members
 * dropped, no whitespace. Hashes (hardware fingerprint, settings hash, scenario version,
 * idempotency body hash) are taken over this form so that key order never changes an identity.
 * Written with plain loops: it runs on every submission (~36 kB), where the
 * entries/filter/map/join version cost twice as much.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
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
  const keys = Object.keys(record).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const v = record[key];
    if (v === undefined) continue;
    if (!first) out += ',';
    first = false;
    out += JSON.stringify(key) + ':' + canonicalJson(v);
  }
  return out + '}';
}
