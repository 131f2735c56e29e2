/**
 * What a reader types as their size ("40,000,000", "40 000 000", "40M", "1.5e6"), read as a whole
 * positive number of the scenario's scale parameter, or a sentence saying what is wrong with it.
 * Pure and without imports: the scale picker's script runs it in the browser.
 */
export type ScaleInput = { ok: true; value: number } | { ok: false; message: string };

const SUFFIX: Record<string, number> = { k: 1e3, m: 1e6, g: 1e9, b: 1e9 };
/** Digits with thousands separators (comma, space, thin space, underscore), a decimal part, an exponent, a k/M/G suffix. */
const PATTERN = /^([+-]?)(\d[\d,_\s\u2009\u202f]*(?:\.\d+)?|\.\d+)(?:e(\d+))?\s*([kmgb])?$/i;

/** `param` names the unit in the messages: "rows", "tables". */
export function parseScaleInput(text: string, param: string): ScaleInput {
  const t = text.trim();
  const example = `e.g. 40,000,000 or 40M`;
  if (t === '') return { ok: false, message: `Type a number of ${param} (${example}).` };
  const m = PATTERN.exec(t);
  if (!m) return { ok: false, message: `“${t}” is not a number of ${param}: type digits (${example}).` };
  const [, sign, digits, exponent, suffix] = m;
  const value =
    Number((digits ?? '').replace(/[,_\s\u2009\u202f]/g, '')) *
    10 ** Number(exponent ?? 0) *
    (suffix ? (SUFFIX[suffix.toLowerCase()] ?? 1) : 1);
  if (sign === '-' || value === 0) return { ok: false, message: `A number of ${param} is at least 1.` };
  if (!Number.isFinite(value)) return { ok: false, message: `“${t}” is too large a number of ${param}.` };
  if (!Number.isInteger(value))
    return { ok: false, message: `A number of ${param} is a whole number (${value.toLocaleString('en-US')} is not).` };
  return { ok: true, value };
}
