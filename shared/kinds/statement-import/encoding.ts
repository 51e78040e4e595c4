// Bytes → text: the encoding the caller names, else the one the file declares
// (an XML declaration, OFX 1.x `ENCODING`/`CHARSET` headers), else UTF-8 —
// except that bytes which are not valid UTF-8 are read as Windows-1252 for the
// formats that are commonly exported in a legacy code page (MT940, OFX 1.x).
import iconv from 'iconv-lite';
import { StatementParseError, type StatementFormat } from './model.js';

/** Encoding names accepted from the caller (`?encoding=`), as iconv-lite spells them. */
export function knownEncoding(name: string): boolean {
  return iconv.encodingExists(name);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function isUtf8(bytes: Uint8Array): boolean {
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** What the file itself says its encoding is, or null. */
export function declaredEncoding(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  const xml = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head.replace(/^\uFEFF|^ï»¿/, ''));
  if (xml?.[1]) return xml[1];
  if (/^\s*OFXHEADER\s*:/.test(head)) {
    const encoding = /^ENCODING\s*:\s*(\S+)/m.exec(head)?.[1]?.toUpperCase();
    const charset = /^CHARSET\s*:\s*(\S+)/m.exec(head)?.[1]?.toUpperCase();
    if (encoding === 'UTF-8' || encoding === 'UNICODE') return 'utf-8';
    if (charset === undefined || charset === 'NONE') return null;
    if (/^\d+$/.test(charset)) return `cp${charset}`;
    return charset;
  }
  return null;
}

/** Decodes `bytes` for `format` (see the file comment); a leading byte-order mark is dropped. */
export function decodeStatement(bytes: Uint8Array, format: StatementFormat, requested: string | null): string {
  let encoding = requested ?? declaredEncoding(bytes);
  if (encoding === null) encoding = format === 'csv' || format === 'camt053' || isUtf8(bytes) ? 'utf-8' : 'cp1252';
  if (!iconv.encodingExists(encoding))
    throw new StatementParseError(format, 'encoding', `unknown encoding ${JSON.stringify(encoding)}`);
  if (/^utf-?8$/i.test(encoding) && !isUtf8(bytes))
    throw new StatementParseError(
      format,
      'encoding',
      'the file is not valid UTF-8 (name its encoding with ?encoding=)',
    );
  return iconv.decode(Buffer.from(bytes), encoding, { stripBOM: true });
}
