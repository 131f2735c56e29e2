/**
 * What reaches a terminal from outside TuneLab — a table or schema name from a database's
 * catalog, a sentence from an API — is shown, never obeyed: control characters (C0 but the tab,
 * DEL, C1) and the bidirectional overrides and isolates are written as visible escapes (`\x1b`,
 * `\n`, `\u202e`), so a name can neither colour, move or retitle the terminal, write its
 * clipboard (OSC 52), nor start a line of its own that looks like TuneLab's.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r' };

/** One line of terminal output with everything unsafe in it made visible (see the module). */
export function printable(text: string): string {
  return text.replace(UNSAFE, (ch) => {
    const named = NAMED[ch];
    if (named) return named;
    const code = ch.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
