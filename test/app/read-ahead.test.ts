// Reading ahead the WALs a root reads next (services/read-ahead.ts): in the order planned, never more than its
// bound ahead of the real read, on from there as the real read takes files, and harmless when a file is gone.
// The bytes it reads are counted; its descriptors are counted on /proc.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReadAhead } from '../../src-main/services/read-ahead.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { useTempDirs } from '../helpers/temp.js';
import { writeFinished } from './wal-fixture.js';

const tempDir = useTempDirs('walscope-read-ahead-');
const MIB = 1_048_576;

function files(count: number, size_bytes: number): { path: string; size_bytes: number }[] {
  const dir = tempDir();
  return Array.from({ length: count }, (_, index) => {
    const file = path.join(dir, `f${index}`);
    fs.writeFileSync(file, Buffer.alloc(size_bytes, index));
    return { path: file, size_bytes };
  });
}

/** Waits until `reader` has read `bytes` ahead, then a little longer to see that it stops there. */
async function readTo(reader: ReadAhead, bytes: number): Promise<void> {
  for (let waited = 0; reader.bytes_read < bytes && waited < 10_000; waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(reader.bytes_read).toBe(bytes);
}

const openDescriptors = () => fs.readdirSync('/proc/self/fd').length;

describe('reading ahead', () => {
  it('reads the planned files in order up to its bound, and on as the real read takes them', async () => {
    const planned = files(5, 3 * MIB);
    const descriptors_before = openDescriptors();
    const reader = new ReadAhead(7 * MIB);
    reader.plan(planned);
    await readTo(reader, 6 * MIB);
    reader.taken(planned[0]!.path);
    await readTo(reader, 9 * MIB);
    // A new plan that no longer holds a file read ahead frees its bytes: two more fit.
    reader.plan(planned.slice(3));
    await readTo(reader, 15 * MIB);
    reader.close();
    expect(openDescriptors()).toBe(descriptors_before);
  });

  it('reads the first bound of a file larger than it, and skips a file that is gone', async () => {
    const [large, small] = [files(1, 5 * MIB)[0]!, files(1, MIB)[0]!];
    const reader = new ReadAhead(2 * MIB);
    reader.plan([{ path: path.join(tempDir(), 'gone'), size_bytes: MIB }, large, small]);
    await readTo(reader, 2 * MIB);
    reader.taken(large.path);
    await readTo(reader, 3 * MIB);
    reader.close();
  });

  it('closes its file when closed in the middle of a read', async () => {
    const planned = files(1, 64 * MIB);
    const descriptors_before = openDescriptors();
    const reader = new ReadAhead();
    reader.plan(planned);
    for (let waited = 0; reader.bytes_read === 0 && waited < 10_000; waited += 1) await new Promise((resolve) => setTimeout(resolve, 1));
    reader.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reader.bytes_read).toBeLessThan(64 * MIB);
    expect(openDescriptors()).toBe(descriptors_before);
  });

  it('is what the background read of a root does: its WALs are read ahead, each at most once', async () => {
    const root = tempDir();
    for (let index = 0; index < 12; index++) writeFinished(root, `s${index}`);
    const service = await SessionService.open(root, { watch: false, cache: false });
    await service.whenRead();
    const wal_bytes = (await service.listSessions()).reduce((sum, summary) => sum + (summary.size_bytes ?? 0), 0);
    await service.close();
    expect(service.read_ahead.bytes_read).toBeGreaterThan(0);
    expect(service.read_ahead.bytes_read).toBeLessThanOrEqual(wal_bytes);
  });
});
