// Where a command writes, and what it knows about its terminal. Injected so
// that main.ts is the only place that touches process.* streams.
import { colourEnabled, makeStyle, type Style } from './output/style.js';

export interface Io {
  out(text: string): void;
  err(text: string): void;
  style: Style;
  /** stderr is a terminal: progress (the --follow spinner) may be drawn there. */
  interactive: boolean;
  env: NodeJS.ProcessEnv;
}

export function processIo(): Io {
  return {
    out: (t) => {
      process.stdout.write(t);
    },
    err: (t) => {
      process.stderr.write(t);
    },
    style: makeStyle(colourEnabled(process.stdout.isTTY, process.env)),
    interactive: Boolean(process.stderr.isTTY),
    env: process.env,
  };
}
