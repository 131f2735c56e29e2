/**
 * axe-core on the page's window, injected by the browser tests' accessibility checks
 * (`page.addScriptTag` with axe.min.js): the one declaration every such test reads it through.
 */
interface Window {
  axe?: {
    run: (ctx: Document, opts: object) => Promise<{ violations: { id: string; nodes: { target: unknown[] }[] }[] }>;
  };
}
