// The built renderer, served from one folder: no listing, no path outside it, a fixed set of content types.
import fs from 'node:fs';
import path from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

export const STATIC_FILE_BYTES_MAX = 32 * 1_048_576;

export interface StaticFile {
  body: Buffer;
  content_type: string;
}

/** A URL path with its percent-escapes decoded, or null when they are malformed (the server answers 400). */
export function decodeUrlPath(url_path: string): string | null {
  try {
    return decodeURIComponent(url_path);
  } catch {
    return null;
  }
}

/** The file for a decoded URL path, or null (unknown type, outside the folder, missing, too large). */
export function staticFile(dir: string, decoded_path: string): StaticFile | null {
  const relative = decoded_path === '/' ? 'index.html' : decoded_path.replace(/^\/+/, '');
  const file = path.resolve(dir, relative);
  if (!file.startsWith(path.resolve(dir) + path.sep)) return null;
  const content_type = CONTENT_TYPES[path.extname(file)];
  if (content_type === undefined) return null;
  try {
    const stats = fs.statSync(file);
    if (!stats.isFile() || stats.size > STATIC_FILE_BYTES_MAX) return null;
    return { body: fs.readFileSync(file), content_type };
  } catch {
    return null;
  }
}
