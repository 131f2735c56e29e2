// Lets `prisma migrate deploy` / `prisma migrate status` work against DATABASE_URL; TuneLab's own
// applier (packages/results-db/src/migrate.ts) reads the same prisma/migrations folder.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/tunelab' },
});
