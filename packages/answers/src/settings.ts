import { factsOf, ownValue } from '@tunelab/contracts';

/**
 * Server settings as people compare them: "8192MB" and "8GB" are the same, a setting a run did
 * not record is the server's default (the runner records only settings whose source is not
 * `default`, see apps/runner/src/engines/postgresql/driver.ts), and a setting the article did not report
 * is unknown, never "default".
 */

/** Own properties only: a setting called `constructor` or `toString` has no default. */
export function engineDefault(engine: string, name: string): string | null {
  const defaults = factsOf(engine)?.defaultSettings;
  return (defaults && ownValue(defaults, name)) ?? null;
}

/**
 * A stored run warning as runners now word it (apps/runner/src/engine/probe.ts and
 * probe/hardware.ts). Older runners wrote "server setting wal_compression is (default) here; …"
 * without the value, so the engine's default is named ("… is off (the default) here; …"), and
 * "storage kind unknown (… say nothing about the storage behind it, pass --storage)); pass
 * --storage ssd|hdd|nvme", so the advice inside the parentheses goes. Other warnings are kept.
 */
export function storedWarningText(engine: string, warning: string): string {
  const setting = /^server setting (\S+) is \(default\) here;/.exec(warning);
  if (setting) {
    const value = engineDefault(engine, setting[1]!);
    return warning.replace(' is (default) here;', ` is ${value ?? 'the server’s default'} (the default) here;`);
  }
  return warning.replace(/, pass --storage\)\); pass --storage /, '); pass --storage ');
}

const SIZE: Record<string, number> = {
  b: 1,
  k: 1024,
  kb: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1024 ** 4,
};
const TIME: Record<string, number> = { us: 0.001, ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 };

/** A comparable form: sizes in bytes, times in ms, booleans as on/off, words lower-cased. */
export function normalizeSetting(value: string): string {
  const v = value.trim();
  const m = /^(-?\d+(?:\.\d+)?)\s*([a-z]+)?$/i.exec(v);
  if (m) {
    const n = Number(m[1]);
    const unit = (m[2] ?? '').toLowerCase();
    if (unit === '') return String(n);
    const size = ownValue(SIZE, unit);
    if (size !== undefined) return `${n * size}B`;
    const time = ownValue(TIME, unit);
    if (time !== undefined) return `${n * time}ms`;
  }
  const lower = v.toLowerCase();
  if (['on', 'true', 'yes'].includes(lower)) return 'on';
  if (['off', 'false', 'no'].includes(lower)) return 'off';
  return lower;
}

export const sameSetting = (a: string, b: string) => normalizeSetting(a) === normalizeSetting(b);

/** Settings that never decide a benchmark (locale, paths, logging, ports): kept out of every diff. */
export const isNoiseSetting = (name: string) =>
  /^(lc_|log_|logging_|syslog|event_source|port$|listen_addresses|unix_socket|data_directory|hba_file|ident_file|config_file|external_pid_file|cluster_name|application_name|client_encoding|datestyle|timezone|default_text_search_config|dynamic_shared_memory_type|max_connections|ssl|krb_|stats_temp_directory|update_process_title)/i.test(
    name,
  );
