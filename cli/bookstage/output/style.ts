// Colours only where a person reads them: stdout is a terminal and NO_COLOR
// (https://no-color.org) is unset or empty. Pipes and files get plain text.

export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
}

const wrap =
  (open: number, close: number) =>
  (s: string): string =>
    `\u001b[${open}m${s}\u001b[${close}m`;
const plain = (s: string): string => s;

export function colourEnabled(isTTY: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  return Boolean(isTTY) && !env.NO_COLOR;
}

export function makeStyle(enabled: boolean): Style {
  if (!enabled) return { bold: plain, dim: plain, red: plain, green: plain, yellow: plain };
  return { bold: wrap(1, 22), dim: wrap(2, 22), red: wrap(31, 39), green: wrap(32, 39), yellow: wrap(33, 39) };
}

// eslint-disable-next-line no-control-regex -- matching ANSI escapes is the point
const ANSI = /\u001b\[[0-9;]*m/g;
export const visibleLength = (s: string): number => s.replace(ANSI, '').length;
