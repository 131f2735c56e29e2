/**
 * The Chromium every browser test launches (`import { launchChromium } from '@tunelab/browser'`):
 *   1. `CHROMIUM_PATH` when set (any Chromium or Chrome build);
 *   2. else Debian's `/usr/bin/chromium` when it exists;
 *   3. else the Chromium shipped inside the npm package `@sparticuz/chromium` (unpacked to the
 *      temp dir on first use, offline), launched with the package's own `args`.
 * So `npm install && npm test` needs no browser download and no system package.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const SYSTEM_CHROMIUM = '/usr/bin/chromium';
const COMMON_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

type ChromiumChoice = {
  executablePath: string;
  args: string[];
  source: 'CHROMIUM_PATH' | 'system' | '@sparticuz/chromium';
};

export async function findChromium(env: NodeJS.ProcessEnv = process.env): Promise<ChromiumChoice> {
  const fromEnv = env.CHROMIUM_PATH?.trim();
  if (fromEnv) {
    if (!existsSync(fromEnv))
      throw new Error(
        `CHROMIUM_PATH=${fromEnv} does not exist; unset it to use ${SYSTEM_CHROMIUM} or the Chromium from @sparticuz/chromium`,
      );
    return { executablePath: fromEnv, args: COMMON_ARGS, source: 'CHROMIUM_PATH' };
  }
  if (existsSync(SYSTEM_CHROMIUM)) return { executablePath: SYSTEM_CHROMIUM, args: COMMON_ARGS, source: 'system' };
  const { default: sparticuz } = await import('@sparticuz/chromium');
  return { executablePath: await sparticuz.executablePath(), args: sparticuz.args, source: '@sparticuz/chromium' };
}

/** A headless Chromium found as above; the caller closes it. */
export async function launchChromium(): Promise<Browser> {
  const choice = await findChromium();
  return chromium.launch({ executablePath: choice.executablePath, args: choice.args, headless: true });
}
