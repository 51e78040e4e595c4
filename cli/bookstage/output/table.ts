// A plain text table: a header row, then rows, columns padded to their widest cell.
import { visibleLength, type Style } from './style.js';

export function table(style: Style, headers: string[], rows: string[][], indent = '  '): string {
  if (rows.length === 0) return '';
  const widths = headers.map((h, i) => Math.max(visibleLength(h), ...rows.map((r) => visibleLength(r[i] ?? ''))));
  const line = (cells: string[]): string =>
    (indent + cells.map((c, i) => c + ' '.repeat(widths[i]! - visibleLength(c))).join('  ')).trimEnd();
  return [style.bold(line(headers)), ...rows.map(line)].join('\n') + '\n';
}
