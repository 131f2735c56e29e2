/**
 * The servers directory the tests share between runs, so re-runs do not download the ~23 MB
 * package of a major again (an empty or missing directory works too: the tests install).
 * `TUNELAB_TEST_SERVERS_DIR` overrides (its default: `@tunelab/env/testing`).
 */
export { TEST_SERVERS_DIR } from '@tunelab/env/testing';
