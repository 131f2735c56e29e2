import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findChromium, launchChromium } from './index.ts';

describe('findChromium', () => {
  it('takes CHROMIUM_PATH first, and names it when it does not exist', async () => {
    await expect(findChromium({ CHROMIUM_PATH: process.execPath })).resolves.toMatchObject({
      executablePath: process.execPath,
      source: 'CHROMIUM_PATH',
    });
    await expect(findChromium({ CHROMIUM_PATH: '/nonexistent/chromium' })).rejects.toThrow(
      /CHROMIUM_PATH=\/nonexistent\/chromium does not exist/,
    );
  });

  it('without CHROMIUM_PATH: /usr/bin/chromium when present, else the Chromium inside @sparticuz/chromium', async () => {
    const choice = await findChromium({});
    expect(choice.source).toBe(existsSync('/usr/bin/chromium') ? 'system' : '@sparticuz/chromium');
    expect(existsSync(choice.executablePath)).toBe(true);
  });

  it('launches a headless browser that renders a page', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ javaScriptEnabled: false });
      await page.setContent('<h1>TuneLab</h1>');
      await expect(page.locator('h1').textContent()).resolves.toBe('TuneLab');
    } finally {
      await browser.close();
    }
  });
});
