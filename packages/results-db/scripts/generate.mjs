// Generates the Prisma client into src/generated/prisma.
// Generation runs on WebAssembly; the CLI still insists that a schema engine binary exists, which
// it cannot download offline. When none is present we point PRISMA_SCHEMA_ENGINE_BINARY at an
// existing file so offline and air-gapped installs work. See README "Results database".
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const env = { ...process.env, CHECKPOINT_DISABLE: '1', PRISMA_HIDE_UPDATE_MESSAGE: '1' };
const enginesDir = join(root, 'node_modules', '@prisma', 'engines');
const hasEngine = existsSync(enginesDir) && readdirSync(enginesDir).some((f) => f.startsWith('schema-engine'));
if (!env.PRISMA_SCHEMA_ENGINE_BINARY && !hasEngine) {
  env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;
}
const prismaBin = join(root, 'node_modules', 'prisma', 'build', 'index.js');
if (!existsSync(prismaBin)) {
  console.error('prisma CLI not found: run npm install at the repository root first');
  process.exit(1);
}
const r = spawnSync(process.execPath, [prismaBin, 'generate', '--schema', join(root, 'prisma', 'schema.prisma')], {
  env,
  stdio: 'inherit',
  cwd: root,
});
process.exit(r.status ?? 1);
