// Runs the built `bookstage` CLI as a subprocess, as a user or agent would,
// with its own config dir so that no real profile is ever read.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AnswerBody } from '../helpers/http.js';

// This file runs as dist/test/cli/run-cli.js; the CLI is dist/cli/bookstage/main.js.
export const CLI_MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'cli', 'bookstage', 'main.js');

/** One empty config dir for every run of this test process, so that no real profile is ever read. */
let configHome: string | null = null;
const emptyConfigHome = (): string => (configHome ??= mkdtempSync(join(tmpdir(), 'bookstage-cli-config-')));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: string[],
  options: {
    url?: string;
    token?: string;
    env?: Record<string, string | undefined>;
    stdin?: string;
    /** Close the reading end of its output at once, as `bookstage … | head` does once it has read enough. */
    closeStdout?: boolean;
  } = {},
): Promise<CliRun> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    XDG_CONFIG_HOME: emptyConfigHome(),
    NO_COLOR: undefined,
    BOOKSTAGE_PROFILE: undefined,
  };
  env.BOOKSTAGE_URL = options.url;
  env.BOOKSTAGE_TOKEN = options.token;
  Object.assign(env, options.env ?? {});
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_MAIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    if (options.closeStdout) child.stdout.destroy();
    else
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
      });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

/** What `--json` prints: the API's envelope, typed like the HTTP tests' answers (test/helpers/answers.ts). */
export function envelopeOf<Data>(stdout: string): AnswerBody<Data> {
  return JSON.parse(stdout) as AnswerBody<Data>;
}
