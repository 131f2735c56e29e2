/**
 * The one CSV writer of every CSV TuneLab publishes (site downloads; any API export uses it too):
 * RFC 4180 quoting, CRLF line ends, and formula neutralisation as OWASP recommends
 * (https://owasp.org/www-community/attacks/CSV_Injection): a text cell that starts with
 * `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed with `'` so that a spreadsheet shows
 * it instead of evaluating it. Numbers are written as numbers (a negative number stays −5, not '-5).
 */
export type CsvCell = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(v: CsvCell): string {
  if (v === null || v === undefined) return '';
  // 12 significant digits: drops binary artefacts (45.663906000000004) and keeps every measured digit.
  // An integer of up to 12 digits is its own rounding (the common cell: repetitions, counts).
  if (typeof v === 'number')
    return Number.isInteger(v) && Math.abs(v) < 1e12 ? String(v) : String(Number(v.toPrecision(12)));
  if (typeof v === 'boolean') return String(v);
  const s = FORMULA_START.test(v) ? `'${v}` : v;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv(header: string[], rows: CsvCell[][]): string {
  // A text repeats down a column (a run's id on each of its samples): each is quoted once per file.
  const texts = new Map<string, string>();
  const cell = (v: CsvCell) => {
    if (typeof v !== 'string') return csvCell(v);
    let out = texts.get(v);
    if (out === undefined) texts.set(v, (out = csvCell(v)));
    return out;
  };
  return [header, ...rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}
