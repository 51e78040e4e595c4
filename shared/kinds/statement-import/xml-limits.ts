// What an XML statement (CAMT.053, OFX 2.x) may make its parser allocate
// (docs/guide/statement-import.md "Unreadable files"): a linear scan of the
// text before any parser runs, refusing a document type declaration (no
// statement format uses one; its entities are what expansion attacks are made
// of), elements nested deeper, elements with more attributes, or more
// elements in all than a bank's statement holds.
// why: a parser builds an object per element and attribute; one element with
// hundreds of thousands of attributes held the worker's memory and event loop.
import { StatementParseError, type StatementFormat } from './model.js';

export interface XmlLimits {
  /** Open elements at once; null when the format leaves leaf elements unclosed (OFX 1.x SGML). */
  max_depth: number | null;
  max_attributes: number;
  max_total_attributes: number;
  max_elements: number;
}

export const XML_LIMITS: XmlLimits = {
  max_depth: 64,
  max_attributes: 32,
  max_total_attributes: 200_000,
  max_elements: 1_000_000,
};

/** The line (1-based) of `offset` in `text`. */
function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line += 1;
  return line;
}

/** Throws StatementParseError (location `line N`) where `text` first goes past `limits`. */
export function checkXmlShape(text: string, format: StatementFormat, limits: XmlLimits = XML_LIMITS): void {
  const fail = (offset: number, reason: string): never => {
    throw new StatementParseError(format, `line ${lineOf(text, offset)}`, reason);
  };
  let depth = 0;
  let elements = 0;
  let allAttributes = 0;
  let at = text.indexOf('<');
  while (at !== -1) {
    const skipTo = (close: string, from: number): number => {
      const found = text.indexOf(close, from);
      return found === -1 ? -1 : found + close.length - 1;
    };
    let end: number;
    if (text.startsWith('<!--', at)) end = skipTo('-->', at + 4);
    else if (text.startsWith('<![CDATA[', at)) end = skipTo(']]>', at + 9);
    else if (text.startsWith('<!', at))
      end = fail(at, 'a document type declaration (<!DOCTYPE, <!ENTITY) is not allowed');
    else if (text.startsWith('<?', at)) end = skipTo('?>', at + 2);
    else if (text.startsWith('</', at)) {
      end = skipTo('>', at);
      depth -= 1;
    } else {
      // A start tag: its attributes are the `=` outside quoted values.
      let attributes = 0;
      let quote = '';
      let i = at + 1;
      for (; i < text.length; i += 1) {
        const c = text[i]!;
        if (quote !== '') {
          if (c === quote) quote = '';
        } else if (c === '"' || c === "'") quote = c;
        else if (c === '=') {
          attributes += 1;
          allAttributes += 1;
          if (attributes > limits.max_attributes)
            fail(at, `an element with more than ${limits.max_attributes} attributes`);
          if (allAttributes > limits.max_total_attributes)
            fail(at, `more than ${limits.max_total_attributes} attributes`);
        } else if (c === '>') break;
      }
      end = i < text.length ? i : -1;
      elements += 1;
      if (elements > limits.max_elements) fail(at, `more than ${limits.max_elements} elements`);
      if (text[i - 1] !== '/') {
        depth += 1;
        if (limits.max_depth !== null && depth > limits.max_depth)
          fail(at, `elements nested more than ${limits.max_depth} deep`);
      }
    }
    // An unterminated comment, section or tag: the parser names it.
    if (end === -1) return;
    at = text.indexOf('<', end + 1);
  }
}
