// bookstage profile set|list: named API URLs and tokens in the config file
// (mode 0600), so that a token need not be typed on a command line.
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { listProfiles, saveProfile } from '../config.js';
import { CliError, EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { example } from './options.js';
import { topLevel } from './top-level.js';

export function profileCommands(program: Command, io: Io, done: (code: number) => void): void {
  const group = example(
    topLevel(program, 'profile'),
    'printf %s "$TOKEN" | bookstage profile set default --url http://127.0.0.1:8080',
  );
  const set = group
    .command('set')
    .argument('<name>', 'profile name; `default` is used when nothing else is given')
    .description('add or replace a profile; the token is read from stdin, never from the command line')
    .requiredOption('--url <url>', "the API's base URL, e.g. http://127.0.0.1:8080")
    .action((name: string, opts: { url: string }) => {
      const token = readFileSync(0, 'utf8').trim();
      if (!token) throw new CliError('no token on stdin', EXIT.badInput);
      const path = saveProfile(name, { url: opts.url, token }, io.env);
      io.out(`profile ${name} saved in ${path}\n`);
      done(EXIT.ok);
    });
  example(set, 'printf %s "$TOKEN" | bookstage profile set prod --url https://books.example.com');
  const list = group
    .command('list')
    .description('the profiles and their URLs (never the tokens)')
    .action(() => {
      for (const p of listProfiles(io.env)) io.out(`${p.name}\t${p.url ?? ''}\n`);
      done(EXIT.ok);
    });
  example(list, 'bookstage profile list');
}
