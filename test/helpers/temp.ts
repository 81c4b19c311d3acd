// Real temporary folders under os.tmpdir(), removed after each test of the file that asks for them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/** Call at the top of a test file; returns a maker of fresh folders that are removed after every test. */
export function useTempDirs(prefix = 'walscope-'): () => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
