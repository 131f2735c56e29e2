import { baseConfig } from '@tunelab/vitest-config';

// Unpacking @sparticuz/chromium on first use and starting a browser take a while: the base's
// timeouts (180 s) cover it.
export default baseConfig;
