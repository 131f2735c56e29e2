/**
 * Text a runner wrote (a failure sentence) made safe to show to anyone: it may name the target's
 * URL with a password, an internal host or address, or a token. URLs keep only their scheme;
 * IP addresses, `host:port` pairs, `user@host`, conninfo `host=`/`password=`/`user=` values,
 * environment-style secrets (`MYSQL_PWD=`, `PGPASSWORD=`, `AWS_SECRET_ACCESS_KEY=`), password and
 * token options, HTTP credentials and TuneLab tokens are masked. The operator (with an operator token) still sees the sentence as sent.
 */
const RULES: readonly [RegExp, string | ((...m: string[]) => string)][] = [
  // scheme://user:password@host:port/path?query → scheme://***
  [/\b([a-z][a-z0-9+.-]{1,20}):\/\/(?:[^\s"'<>`]*[^\s"'<>`:.,;)])?/gi, (_m, scheme) => `${scheme}://***`],
  // libpq / DSN key=value pairs that name a place or a secret.
  [
    /\b(host|hostaddr|password|passwd|pwd|user|dbname|server|socket)(\s*=\s*)("[^"]*"|'[^']*'|[^\s;,]+)/gi,
    (_m, k, eq) => `${k}${eq}***`,
  ],
  // Environment-style secrets: MYSQL_PWD=…, PGPASSWORD=…, AWS_SECRET_ACCESS_KEY=…, GITHUB_TOKEN=…,
  // and the options that carry one (--password=…, --token …).
  [
    /\b([A-Z][A-Z0-9_]*(?:PWD|PASS|PASSWD|PASSWORD|SECRET|TOKEN|KEY|KEY_ID|CREDENTIALS?|AUTH))(\s*=\s*)("[^"]*"|'[^']*'|[^\s;,]+)/g,
    (_m, k, eq) => `${k}${eq}***`,
  ],
  [/(--(?:password|token|secret|api-key)(?:=|\s+))("[^"]*"|'[^']*'|[^\s;,]+)/gi, (_m, k) => `${k}***`],
  // HTTP credentials: Authorization: Bearer …, Basic ….
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, (_m, kind) => `${kind} ***`],
  // TuneLab runner and operator tokens.
  [/\btl[a-z]_[A-Za-z0-9_-]{8,}/g, '***'],
  // user@host.domain
  [/\b[\w.+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+\b/gi, '***'],
  // [v6]:port and bare IPv6 (at least three groups)
  [/\[[0-9a-f:.]*:[0-9a-f:.]*\](?::\d{1,5})?/gi, '***'],
  [/\b[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){4,7}\b/gi, '***'],
  [/\b[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*::(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*)?\b/gi, '***'],
  // IPv4, with a port or not
  [/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g, '***'],
  // host:port and host.domain names
  [/\b[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)*:\d{2,5}\b/gi, '***'],
  [
    /\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:internal|local|lan|corp|home|intranet|localdomain|com|net|org|io|cloud)\b/gi,
    '***',
  ],
];

export function redactForPublic(text: string): string {
  let out = text;
  for (const [pattern, replacement] of RULES)
    out = out.replace(pattern, replacement as (substring: string, ...args: string[]) => string);
  return out;
}
