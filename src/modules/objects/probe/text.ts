/**
 * Text sniffing, last after every binary magic: the first 4 KiB must be UTF-8 (or UTF-16 with a byte order mark)
 * without NULs or other binary control bytes. Then markup is recognised from the first element after any BOM,
 * whitespace, XML declaration, processing instructions, comments and DOCTYPE: `<svg` is SVG, an HTML element or
 * `<!doctype html` is HTML (as is a leading comment with nothing after it), anything else after an XML declaration
 * is XML. Otherwise JSON (parses, or for longer files starts like an object or array) or plain text.
 */
import { type Detector, type Found, KINDS, type Kind, type Media } from './types';

const SNIFF_BYTES = 4096;

type Charset = 'utf-8' | 'utf-16le' | 'utf-16be';

/** The element names the WHATWG sniffing algorithm treats as HTML, and some more common ones. */
const HTML_ELEMENTS = new Set(
  (
    'html head body script iframe h1 h2 h3 h4 h5 h6 div span font table a style title b i u br p meta link img ' +
    'form input button section article header footer nav main template ul ol li pre code center frameset frame ' +
    'object embed base noscript textarea select label canvas video audio hr em strong small blockquote'
  ).split(' '),
);

export const detectText: Detector = (head, size) => {
  const decoded = decode(head, head.length < size);
  if (!decoded) return undefined;
  const { text, charset } = decoded;
  const withCharset = (k: Kind): Kind =>
    charset === 'utf-8' ? k : { ...k, contentType: k.contentType.replace('utf-8', charset) };
  const markup = classifyMarkup(text);
  if (markup?.kind === 'svg') {
    const media = svgSize(text, markup.at);
    return { kind: KINDS.svg, inspect: async (): Promise<Found | undefined> => media && { media } };
  }
  if (markup?.kind === 'html') return { kind: withCharset(KINDS.html) };
  if (markup?.kind === 'xml') return { kind: KINDS.xml };
  if (isJson(text, head.length >= size)) return { kind: KINDS.json };
  return { kind: withCharset(KINDS.text) };
};

/** The head as text if its first 4 KiB are text; the returned string covers the whole head (without the BOM). */
function decode(head: Uint8Array, cut: boolean): { text: string; charset: Charset } | undefined {
  if (head.length === 0) return undefined;
  const sniff = head.subarray(0, SNIFF_BYTES);
  const truncated = cut || head.length > SNIFF_BYTES;
  if (sniff[0] === 0xff && sniff[1] === 0xfe) return utf16(head, 'utf-16le');
  if (sniff[0] === 0xfe && sniff[1] === 0xff) return utf16(head, 'utf-16be');
  const bom = sniff[0] === 0xef && sniff[1] === 0xbb && sniff[2] === 0xbf ? 3 : 0;
  if (!isUtf8Text(sniff, bom, truncated)) return undefined;
  return { text: new TextDecoder('utf-8').decode(head.subarray(bom)), charset: 'utf-8' };
}

function utf16(head: Uint8Array, charset: Charset): { text: string; charset: Charset } | undefined {
  const body = head.subarray(2, head.length - (head.length % 2));
  const text = new TextDecoder(charset).decode(body);
  const sniffed = text.slice(0, SNIFF_BYTES / 2 - 1);
  for (let i = 0; i < sniffed.length; i += 1) if (isBinaryControl(sniffed.charCodeAt(i))) return undefined;
  return { text, charset };
}

/** NUL and the C0 controls other than tab, newlines, form feed and escape mark binary content. */
const isBinaryControl = (c: number): boolean =>
  c <= 0x08 || c === 0x0b || (c >= 0x0e && c <= 0x1a) || (c >= 0x1c && c <= 0x1f);

/** Well-formed UTF-8 without binary controls; a sequence cut by the end of the window is fine when truncated. */
function isUtf8Text(b: Uint8Array, from: number, truncated: boolean): boolean {
  for (let i = from; i < b.length; ) {
    const c = b[i] ?? 0;
    if (c < 0x80) {
      if (isBinaryControl(c)) return false;
      i += 1;
      continue;
    }
    const n = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
    if (!n) return false;
    if (i + n >= b.length) return truncated;
    const c1 = b[i + 1] ?? 0;
    if (
      (c === 0xe0 && c1 < 0xa0) ||
      (c === 0xed && c1 > 0x9f) ||
      (c === 0xf0 && c1 < 0x90) ||
      (c === 0xf4 && c1 > 0x8f)
    ) {
      return false; // overlong, surrogate or beyond U+10FFFF
    }
    for (let k = 1; k <= n; k += 1) if (((b[i + k] ?? 0) & 0xc0) !== 0x80) return false;
    i += n + 1;
  }
  return true;
}

type Markup = { kind: 'svg'; at: number } | { kind: 'html' } | { kind: 'xml' };

const WHITESPACE = /[^ \t\n\r\f]/g;

function skipWhitespace(s: string, i: number): number {
  WHITESPACE.lastIndex = i;
  return WHITESPACE.exec(s)?.index ?? s.length;
}

function classifyMarkup(s: string): Markup | undefined {
  let xml = false;
  let comment = false;
  let i = skipWhitespace(s, 0);
  for (let n = 0; n < 256 && s[i] === '<'; n += 1) {
    const ahead = s.slice(i, i + 16).toLowerCase();
    if (ahead.startsWith('<?')) {
      xml ||= ahead.startsWith('<?xml');
      const end = s.indexOf('?>', i + 2);
      if (end < 0) break;
      i = skipWhitespace(s, end + 2);
    } else if (ahead.startsWith('<!--')) {
      comment = true;
      const end = s.indexOf('-->', i + 4);
      if (end < 0) break;
      i = skipWhitespace(s, end + 3);
    } else if (ahead.startsWith('<!doctype')) {
      const name = /^<!doctype\s+([^\s>[]+)/i.exec(s.slice(i, i + 64))?.[1]?.toLowerCase();
      if (name === 'html') return { kind: 'html' };
      const subset = s.indexOf('[', i);
      const close = s.indexOf('>', i);
      const end = subset >= 0 && subset < close ? s.indexOf(']>', subset) + 1 : close;
      if (end <= 0) break;
      i = skipWhitespace(s, end + 1);
    } else {
      const name = /^<([A-Za-z_][\w:.-]*)/.exec(s.slice(i, i + 80))?.[1]?.toLowerCase();
      if (!name) break;
      const local = name.slice(name.indexOf(':') + 1);
      if (local === 'svg') return { kind: 'svg', at: i };
      if (HTML_ELEMENTS.has(local)) return { kind: 'html' };
      return xml ? { kind: 'xml' } : comment ? { kind: 'html' } : undefined;
    }
  }
  return xml ? { kind: 'xml' } : comment ? { kind: 'html' } : undefined;
}

const ATTRIBUTE = /([A-Za-z_:][-\w:.]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const LENGTH = /^\s*(\d+(?:\.\d*)?|\.\d+)\s*(?:px)?\s*$/i;

/** width/height when plain numbers or px; else the viewBox (scaled to whichever of width/height is given). */
function svgSize(s: string, at: number): Media | undefined {
  const close = s.indexOf('>', at);
  const tag = s.slice(at, close < 0 ? undefined : close);
  const attributes = new Map<string, string>();
  for (const m of tag.matchAll(ATTRIBUTE)) attributes.set((m[1] ?? '').toLowerCase(), m[2] ?? m[3] ?? '');
  const length = (name: string): number | undefined => {
    const m = LENGTH.exec(attributes.get(name) ?? '');
    const v = m ? Number(m[1]) : 0;
    return v > 0 ? v : undefined;
  };
  const width = length('width');
  const height = length('height');
  if (width && height) return { width, height };
  const box = (attributes.get('viewbox') ?? '')
    .trim()
    .split(/[\s,]+/)
    .map(Number);
  const [, , w = 0, h = 0] = box;
  if (box.length !== 4 || !(w > 0) || !(h > 0)) return width || height ? { width, height } : undefined;
  if (width) return { width, height: (width * h) / w };
  if (height) return { width: (height * w) / h, height };
  return { width: w, height: h };
}

function isJson(text: string, complete: boolean): boolean {
  const t = text.trimStart();
  if (t[0] !== '{' && t[0] !== '[') return false;
  if (!complete) return /^(\{\s*["}]|\[\s*([[{"\]\-\d]|true|false|null))/.test(t);
  try {
    const value: unknown = JSON.parse(t);
    return typeof value === 'object' && value !== null;
  } catch {
    return false;
  }
}
