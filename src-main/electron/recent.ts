// Recently opened workspaces, newest first, kept in the app's user-data folder.
import fs from 'node:fs';
import path from 'node:path';

export const RECENT_MAX = 10;
const RECENT_BYTES_MAX = 65_536;

export class RecentList {
  constructor(private readonly file: string) {}

  read(): string[] {
    try {
      const text = fs.readFileSync(this.file, 'utf8');
      if (text.length > RECENT_BYTES_MAX) return [];
      const value: unknown = JSON.parse(text);
      return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string').slice(0, RECENT_MAX) : [];
    } catch {
      return [];
    }
  }

  add(entry: string): string[] {
    const next = [entry, ...this.read().filter((existing) => existing !== entry)].slice(0, RECENT_MAX);
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    fs.writeFileSync(this.file, JSON.stringify(next));
    return next;
  }
}
