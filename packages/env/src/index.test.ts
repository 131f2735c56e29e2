import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { childEnv, EnvError, envWithoutTuneLab, parseEnv } from './index.ts';

describe('parseEnv', () => {
  const Env = z.object({
    PORT: z.coerce.number().int().min(0).default(8787),
    NAME: z.string().optional(),
    URL: z.url().optional(),
  });

  it('applies defaults, coerces, and leaves out what the schema does not name', () => {
    expect(parseEnv(Env, { PORT: '80', NAME: 'x', OTHER: 'y' })).toEqual({ PORT: 80, NAME: 'x' });
    expect(parseEnv(Env, {})).toEqual({ PORT: 8787 });
  });

  it('reads an empty variable as unset: its default applies, an optional one is absent', () => {
    expect(parseEnv(Env, { PORT: '', NAME: '', URL: '' })).toEqual({ PORT: 8787 });
  });

  it('names every bad variable, one a line', () => {
    let thrown: unknown;
    try {
      parseEnv(Env, { PORT: '-1', URL: 'not a url' });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(EnvError);
    const err = thrown as EnvError;
    expect(err.issues.map((i) => i.variable).sort()).toEqual(['PORT', 'URL']);
    expect(err.message).toMatch(/^invalid environment:\n {2}(PORT|URL): .+\n {2}(PORT|URL): .+$/);
  });
});

describe('childEnv', () => {
  it("passes this process's environment on, with the extra variables winning", () => {
    const env = childEnv({ PATH: '/nowhere', TUNELAB_CHILD_ENV_TEST: '1' });
    expect(env.PATH).toBe('/nowhere');
    expect(env.TUNELAB_CHILD_ENV_TEST).toBe('1');
    expect(env.HOME).toBe(process.env.HOME);
    expect(process.env.TUNELAB_CHILD_ENV_TEST).toBeUndefined();
  });
});

describe('envWithoutTuneLab', () => {
  it('leaves out DATABASE_URL and every TUNELAB_ variable of the given environment, then adds `extra`', () => {
    const env = envWithoutTuneLab(
      { TUNELAB_DATA_DIR: '/d' },
      { PATH: '/bin', DATABASE_URL: 'postgres://x', TUNELAB_API_URL: 'http://a', TUNELAB_TOKEN: 't' },
    );
    expect(env).toEqual({ PATH: '/bin', TUNELAB_DATA_DIR: '/d' });
  });
});
