// `bookstage mcp`: the MCP server over stdio (docs/guide/agents.md). stdout carries
// MCP messages only; everything else (start-up, retries) goes to stderr.
import type { Command } from 'commander';
import { resolveProfile } from '../config.js';
import { EXIT } from '../exit-codes.js';
import type { Io } from '../io.js';
import { example, nonNegative } from '../commands/options.js';
import { topLevel } from '../commands/top-level.js';

interface McpCommandOptions {
  profile?: string;
  retries?: number;
  allowReview?: boolean;
  allowApply?: boolean;
}

const DEFAULT_RETRIES = 3;
const BASE_DELAY_MS = 500;

export function mcpCommand(program: Command, io: Io, done: (code: number) => void): void {
  const cmd = topLevel(program, 'mcp')
    .option('--profile <name>', 'use this profile of the config file (see `bookstage profile set`)')
    .option(
      '--retries <n>',
      'retries of each API call on network failures and retryable answers, with the same Idempotency-Key',
      nonNegative('--retries'),
    )
    .option('--allow-review', 'also offer approve_staged_operation and reject_staged_operation')
    .option('--allow-apply', 'also offer apply_staged_operation, which changes the books')
    .action(async (opts: McpCommandOptions) => {
      // Loaded here, not at the top: the MCP SDK (and zod under it) is most of
      // the CLI's start-up time, and only this command needs it.
      const [{ StdioServerTransport }, { offeredTools }, { createMcpServer }] = await Promise.all([
        import('@modelcontextprotocol/sdk/server/stdio.js'),
        import('./tool-catalog.js'),
        import('./server.js'),
      ]);
      const profile = resolveProfile(opts.profile, io.env);
      const allow = { review: Boolean(opts.allowReview), apply: Boolean(opts.allowApply) };
      const retries = opts.retries ?? DEFAULT_RETRIES;
      const server = createMcpServer({
        profile,
        allow,
        policy: {
          retries,
          baseDelayMs: BASE_DELAY_MS,
          onRetry: (attempt, reason, delay) =>
            io.err(`bookstage mcp: ${reason}; retry ${attempt}/${retries} in ${(delay / 1000).toFixed(1)} s\n`),
        },
      });
      const closed = new Promise<void>((resolve) => {
        server.server.onclose = () => resolve();
      });
      // The transport never ends by itself: the host closing our stdin is the end of the session.
      process.stdin.once('end', () => {
        void server.close();
      });
      await server.connect(new StdioServerTransport());
      io.err(
        `bookstage mcp: serving ${profile.url} with tools ${offeredTools(allow)
          .map((t) => t.name)
          .join(', ')}\n`,
      );
      await closed;
      done(EXIT.ok);
    });
  example(cmd, 'bookstage mcp', 'bookstage mcp --profile prod --allow-review');
}
