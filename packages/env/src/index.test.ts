import { describe, expect, it } from 'vitest';
import { childEnv } from './index.ts';

describe('childEnv', () => {
  it("passes this process's environment on, with the extra variables winning", () => {
    const env = childEnv({ PATH: '/nowhere', TUNELAB_CHILD_ENV_TEST: '1' });
    expect(env.PATH).toBe('/nowhere');
    expect(env.TUNELAB_CHILD_ENV_TEST).toBe('1');
    expect(env.HOME).toBe(process.env.HOME);
    expect(process.env.TUNELAB_CHILD_ENV_TEST).toBeUndefined();
  });
});
