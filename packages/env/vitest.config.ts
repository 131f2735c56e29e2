import { baseConfig } from '@tunelab/vitest-config';

export default baseConfig;
