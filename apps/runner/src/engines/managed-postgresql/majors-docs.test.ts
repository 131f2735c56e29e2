/**
 * The managed PostgreSQL majors are written in one place, SUPPORTED_POSTGRESQL_MAJORS in
 * @tunelab/contracts: every README of the repository and every `--help` text that
 * names majors (a range such as 14–18 or a list such as 14, 15, 16, 17, 18, on a line about a
 * major or `--server`) must name exactly those.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CommanderError, type Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { SUPPORTED_POSTGRESQL_MAJORS } from '@tunelab/contracts';
import { buildCli } from '../../cli.ts';
import { readConfig } from '../../config.ts';

const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
const SUPPORTED = `${SUPPORTED_POSTGRESQL_MAJORS.join(', ')}`;

/** Folders that hold no documentation of ours (dependencies, build output, caches). */
const SKIP = new Set([
  'node_modules',
  '.git',
  'dist',
  '.astro',
  '.turbo',
  'generated',
  'coverage',
  'test-output',
  '.tunelab',
]);

/** Every Markdown file of the repository, relative to `dir`. */
function markdownFiles(dir: string, prefix = ''): string[] {
  return readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(prefix, e.name);
    if (e.isDirectory()) return SKIP.has(e.name) ? [] : markdownFiles(dir, rel);
    return e.name.endsWith('.md') ? [rel] : [];
  });
}

/** Every set of majors `text` names, as "14, 15, 16" lists, with the line each is on. */
export function majorsNamed(text: string): { line: string; majors: string }[] {
  const found: { line: string; majors: string }[] = [];
  for (const line of text.split('\n')) {
    if (!/major|--server/i.test(line)) continue;
    for (const m of line.matchAll(/\b(\d{1,2}) ?[–-] ?(\d{1,2})\b/g)) {
      const [a, b] = [Number(m[1]), Number(m[2])];
      if (a >= 9 && b > a) found.push({ line, majors: Array.from({ length: b - a + 1 }, (_, i) => a + i).join(', ') });
    }
    for (const m of line.matchAll(/\b\d{1,2}(?:, \d{1,2}){2,}\b/g)) found.push({ line, majors: m[0] });
  }
  return found;
}

/** The `--help` of the program and of every command and subcommand, as tunelab prints it. */
function everyHelp(): string[] {
  const texts: string[] = [];
  const helpOf = (argv: string[]) => {
    let out = '';
    const io = { out: (s: string) => void (out += s), err: (s: string) => void (out += s), isTTY: false };
    const { program } = buildCli(readConfig({ HOME: '/nonexistent' }), io);
    try {
      program.parse([...argv, '--help'], { from: 'user' });
    } catch (e) {
      if (!(e instanceof CommanderError)) throw e;
    }
    return out;
  };
  const walk = (cmd: Command, argv: string[]) => {
    texts.push(helpOf(argv));
    for (const sub of cmd.commands) walk(sub, [...argv, sub.name()]);
  };
  const io = { out: () => {}, err: () => {}, isTTY: false };
  walk(buildCli(readConfig({ HOME: '/nonexistent' }), io).program, []);
  return texts;
}

describe('the managed majors are written in one place', () => {
  it('finds a range or a list that differs (the check can fail)', () => {
    expect(majorsNamed('a major other than 13–17: exit 2')).toEqual([
      { line: 'a major other than 13–17: exit 2', majors: '13, 14, 15, 16, 17' },
    ]);
    expect(majorsNamed('--server MAJOR (14, 15, 16)')[0]!.majors).toBe('14, 15, 16');
    expect(majorsNamed('load average 12–15, 2 cores')).toEqual([]);
  });

  it('every README names the majors of SUPPORTED_POSTGRESQL_MAJORS', () => {
    const readmes = markdownFiles(ROOT);
    const named = readmes.flatMap((file) =>
      majorsNamed(readFileSync(path.join(ROOT, file), 'utf8')).map((n) => ({ file, ...n })),
    );
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((n) => n.majors !== SUPPORTED)).toEqual([]);
  });

  it('every --help names the majors of SUPPORTED_POSTGRESQL_MAJORS', () => {
    const named = everyHelp().flatMap((text) => majorsNamed(text));
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((n) => n.majors !== SUPPORTED)).toEqual([]);
  });
});
