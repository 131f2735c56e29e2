/**
 * `npm run test:busy`: `npm test` with the CPU kept busy — four busy loops (child processes) beside
 * it, stopped when it ends — so anyone can check before pushing that the suite holds on a loaded
 * machine (not part of CI). Prints the wall time and the load average at the start and the end, and
 * exits with npm test's code. `-- --loops N` changes the number of loops; `-- --continue` lets turbo
 * run every task to its end after one fails (`turbo --continue`), so one run shows every red task.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { loops: { type: 'string', default: '4' }, continue: { type: 'boolean', default: false } },
});
const loops = Number(values.loops);
if (!Number.isInteger(loops) || loops < 0 || loops > 64) {
  console.error(`test:busy: --loops must be a whole number from 0 to 64, not ${values.loops}`);
  process.exit(2);
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const busy: ChildProcess[] = Array.from({ length: loops }, () =>
  spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
);
const stopLoops = () => {
  for (const b of busy) b.kill('SIGKILL');
};
process.on('exit', stopLoops);
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    stopLoops();
    process.exit(130);
  });

console.log(`test:busy: ${loops} busy loops started; load average ${load()}`);
const started = Date.now();
// npm appends the arguments after `--` to the script's last command: turbo.
const test = spawn('npm', ['test', ...(values.continue ? ['--', '--continue'] : [])], { stdio: 'inherit' });
test.on('exit', (code, signal) => {
  stopLoops();
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  console.log(
    `test:busy: npm test ${code === 0 ? 'passed' : `failed (${signal ?? code})`} in ${minutes} min with ${loops} busy loops; load average at the end ${load()}`,
  );
  process.exit(code ?? 1);
});
