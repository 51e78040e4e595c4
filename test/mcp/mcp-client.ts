// `bookstage mcp` spawned by the MCP SDK's own Client and StdioClientTransport,
// as an agent host runs it: the built CLI, the API's URL and a token in its
// environment, nothing else. Every protocol error the client meets (a line on
// stdout that is not a JSON-RPC message among them) is kept for assertions.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CLI_MAIN } from '../cli/run-cli.js';

export interface McpSession {
  client: Client;
  /** Errors the client's transport and protocol reported: a non-JSON-RPC stdout line is one. */
  protocolErrors: Error[];
  stderr(): string;
  call(
    name: string,
    args: Record<string, unknown>,
  ): Promise<CallToolResult & { structuredContent: Record<string, unknown> }>;
  close(): Promise<void>;
}

let configHome: string | null = null;

export async function startMcp(conn: { url: string; token: string }, flags: string[] = []): Promise<McpSession> {
  configHome ??= mkdtempSync(join(tmpdir(), 'bookstage-mcp-config-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_MAIN, 'mcp', ...flags],
    env: { BOOKSTAGE_URL: conn.url, BOOKSTAGE_TOKEN: conn.token, XDG_CONFIG_HOME: configHome },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'bookstage-test-host', version: '1.0.0' });
  const protocolErrors: Error[] = [];
  client.onerror = (err) => {
    protocolErrors.push(err);
  };
  await client.connect(transport);
  return {
    client,
    protocolErrors,
    stderr: () => stderr,
    call: async (name, args) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult & {
        structuredContent: Record<string, unknown>;
      },
    close: () => client.close(),
  };
}
