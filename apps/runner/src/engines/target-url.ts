/** A target URL as the runner shows it: the password replaced by `***`. */
export function redactTarget(target: string): string {
  try {
    const url = new URL(target);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(unparseable target)';
  }
}
