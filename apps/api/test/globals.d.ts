// Tests read JSON bodies whose shapes the assertions check; typing each one would restate the
// contracts. This widens Response.json() for the test folder only.
declare global {
  interface Response {
    json(): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  }
}
export {};
