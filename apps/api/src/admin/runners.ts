// Bodies of the runner-token admin commands (cli.ts wires them to commander). Each returns the
// process exit code: 0 ok, 1 failure.
import type { ResultsDb } from '@tunelab/results-db';

type Out = { out: (line: string) => void; err: (line: string) => void };

export async function createRunnerCommand(
  db: ResultsDb,
  name: string,
  publicLabel: string | null,
  io: Out,
): Promise<number> {
  const r = await db.createRunner(name, { publicLabel });
  io.out(
    `runner ${r.name} created (${publicLabel ? `public label ${JSON.stringify(publicLabel)}` : 'anonymous in public responses'}); its token (shown only now):\n${r.token}`,
  );
  return 0;
}

export async function setPublicLabelCommand(
  db: ResultsDb,
  name: string,
  label: string | null,
  io: Out,
): Promise<number> {
  if (!(await db.setPublicLabel(name, label))) {
    io.err(`tunelab admin: no runner named ${name}`);
    return 1;
  }
  io.out(
    label
      ? `runner ${name} is shown as ${JSON.stringify(label)} in public responses`
      : `runner ${name} is anonymous in public responses`,
  );
  return 0;
}

export async function createOperatorCommand(db: ResultsDb, name: string, io: Out): Promise<number> {
  const r = await db.createRunner(name, { kind: 'operator' });
  io.out(`operator ${r.name} created; its token (shown only now):\n${r.token}`);
  return 0;
}

export async function revokeRunnerCommand(db: ResultsDb, name: string, io: Out): Promise<number> {
  if (await db.revokeRunner(name)) {
    io.out(`runner ${name} revoked`);
    return 0;
  }
  io.err(`tunelab admin: no active runner named ${name}`);
  return 1;
}

export async function listRunnersCommand(db: ResultsDb, io: Out): Promise<number> {
  for (const r of await db.listRunners()) {
    io.out(
      `${r.name}\tcreated ${r.createdAt.toISOString()}\tlast seen ${r.lastSeenAt?.toISOString() ?? 'never'}${r.revokedAt ? `\trevoked ${r.revokedAt.toISOString()}` : ''}${r.kind === 'operator' ? '\toperator' : ''}\t${r.publicLabel ? `public label ${JSON.stringify(r.publicLabel)}` : 'anonymous'}`,
    );
  }
  return 0;
}

export async function migrateCommand(db: ResultsDb, io: Out): Promise<number> {
  const m = await db.migrate();
  io.out(`migrations: ${m.applied.length} applied, ${m.alreadyApplied.length} already there (${db.description})`);
  return 0;
}
