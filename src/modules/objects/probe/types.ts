import type { Reader } from './bytes';

export type ProbeType = 'video' | 'image' | 'audio' | 'document' | 'other';

/** What the content is: the `metadata.type`/`subtype`/`extension` the server fills, and the MIME type to serve it with. */
export interface Kind {
  type: ProbeType;
  subtype: string;
  extension: string;
  contentType: string;
}

export interface MediaInfo {
  '@type': 'Video' | 'Image' | 'Audio';
  width?: number;
  height?: number;
  /** Milliseconds, an integer. */
  duration?: number;
  /** Frames per second, rounded to 3 decimals. */
  frameRate?: number;
}

export interface Probe extends Kind {
  /** Only when the headers were readable. */
  mediaInfo?: MediaInfo;
  /** Milliseconds: the same as `mediaInfo.duration` when known. */
  duration?: number;
}

/** Raw measurements a parser found (duration in ms and frame rate unrounded); `finish` in index.ts sanitises them. */
export interface Media {
  width?: number;
  height?: number;
  duration?: number;
  frameRate?: number;
}

/** What an inspection learned: a refined kind (e.g. an MP4 with only audio tracks) and/or measurements. */
export interface Found {
  kind?: Kind;
  media?: Media;
}

/** A magic-byte match: the kind it implies, and how to read the headers for more (may throw: the kind stands). */
export interface Match {
  kind: Kind;
  inspect?: (reader: Reader, head: Uint8Array) => Promise<Found | undefined>;
}

/** Recognises a format from the first bytes of the content (`size` is the whole content's length). */
export type Detector = (head: Uint8Array, size: number) => Match | undefined;

const kind = (type: ProbeType, subtype: string, extension: string, contentType: string): Kind => ({
  type,
  subtype,
  extension,
  contentType,
});

/** Every kind the probe can answer with. Copy before handing out (`{ ...KINDS.png }`). */
export const KINDS = {
  mp4: kind('video', 'mp4', 'mp4', 'video/mp4'),
  m4v: kind('video', 'mp4', 'm4v', 'video/mp4'),
  mov: kind('video', 'quicktime', 'mov', 'video/quicktime'),
  threeGpp: kind('video', '3gpp', '3gp', 'video/3gpp'),
  webm: kind('video', 'webm', 'webm', 'video/webm'),
  mkv: kind('video', 'x-matroska', 'mkv', 'video/x-matroska'),
  ogv: kind('video', 'ogg', 'ogv', 'video/ogg'),
  avi: kind('video', 'x-msvideo', 'avi', 'video/x-msvideo'),
  flv: kind('video', 'x-flv', 'flv', 'video/x-flv'),
  mpegTs: kind('video', 'mp2t', 'ts', 'video/mp2t'),
  mpeg: kind('video', 'mpeg', 'mpg', 'video/mpeg'),

  m4a: kind('audio', 'mp4', 'm4a', 'audio/mp4'),
  threeGppAudio: kind('audio', '3gpp', '3gp', 'audio/3gpp'),
  weba: kind('audio', 'webm', 'weba', 'audio/webm'),
  mka: kind('audio', 'x-matroska', 'mka', 'audio/x-matroska'),
  mp3: kind('audio', 'mpeg', 'mp3', 'audio/mpeg'),
  mp2: kind('audio', 'mpeg', 'mp2', 'audio/mpeg'),
  aac: kind('audio', 'aac', 'aac', 'audio/aac'),
  wav: kind('audio', 'wav', 'wav', 'audio/wav'),
  ogg: kind('audio', 'ogg', 'ogg', 'audio/ogg'),
  opus: kind('audio', 'ogg', 'opus', 'audio/ogg'),
  flac: kind('audio', 'flac', 'flac', 'audio/flac'),
  aiff: kind('audio', 'aiff', 'aiff', 'audio/aiff'),

  png: kind('image', 'png', 'png', 'image/png'),
  jpeg: kind('image', 'jpeg', 'jpg', 'image/jpeg'),
  gif: kind('image', 'gif', 'gif', 'image/gif'),
  webp: kind('image', 'webp', 'webp', 'image/webp'),
  bmp: kind('image', 'bmp', 'bmp', 'image/bmp'),
  tiff: kind('image', 'tiff', 'tiff', 'image/tiff'),
  ico: kind('image', 'x-icon', 'ico', 'image/x-icon'),
  avif: kind('image', 'avif', 'avif', 'image/avif'),
  heic: kind('image', 'heic', 'heic', 'image/heic'),
  heif: kind('image', 'heif', 'heif', 'image/heif'),
  svg: kind('image', 'svg+xml', 'svg', 'image/svg+xml'),

  pdf: kind('document', 'pdf', 'pdf', 'application/pdf'),
  html: kind('document', 'html', 'html', 'text/html; charset=utf-8'),
  xml: kind('document', 'xml', 'xml', 'application/xml'),
  text: kind('document', 'plain', 'txt', 'text/plain; charset=utf-8'),
  json: kind('document', 'json', 'json', 'application/json'),

  zip: kind('other', 'zip', 'zip', 'application/zip'),
  gzip: kind('other', 'gzip', 'gz', 'application/gzip'),
  sevenZip: kind('other', 'x-7z-compressed', '7z', 'application/x-7z-compressed'),
  rar: kind('other', 'vnd.rar', 'rar', 'application/vnd.rar'),
  tar: kind('other', 'x-tar', 'tar', 'application/x-tar'),
  unknown: kind('other', 'octet-stream', 'bin', 'application/octet-stream'),
} satisfies Record<string, Kind>;
