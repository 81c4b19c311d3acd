// Tail-first opening (issue 9): a big session's last records and timeline come from its end before the read
// from its start has verified a byte of it, marked provisional, and give way to the real rows (which they
// must agree with) or to the real verdict (a torn tail, a refusal) when that read ends. Counted, not timed:
// the tail says how far the read from the start had got when it was found.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionTail, TimelineRow } from '../../src-shared/ipc.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { readWal } from '../../src-main/engine/reader.js';
import { startServer } from '../../src-main/server/http-server.js';
import { sessionTarget } from '../../src-main/engine/inspect.js';
import { READ_SLICE_BYTES } from '../../src-main/services/read-scheduler.js';
import { SessionService } from '../../src-main/services/session-service.js';
import { SessionModel } from '../../src-main/services/session-model.js';
import { longTailOutputBytes, smallOutputBytes, writeSessionWal } from '../../scripts/bench-data.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-tail-first-');
const BIG_BYTES = 40 * 1_048_576;
const MEDIUM_BYTES = 12 * 1_048_576;
const TEST_MS_MAX = 120_000;

const services: SessionService[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
});

function writeSession(bytes: number, small_outputs: boolean, seed: number, steps_per_run?: number): { root: string; wal: string } {
  const root = tempDir();
  const wal = walPath(sessionDir(root, 's'));
  writeSessionWal(wal, { seed, size_bytes_target: bytes, outputBytes: small_outputs ? smallOutputBytes : longTailOutputBytes, ...(steps_per_run === undefined ? {} : { steps_per_run }) });
  return { root, wal };
}

async function open(root: string): Promise<SessionService> {
  const service = await SessionService.open(root, { watch: false, cache: false });
  services.push(service);
  return service;
}

/** Asks for the tail first thing, as the session view does when a big session is opened. */
async function tailOf(service: SessionService): Promise<SessionTail> {
  const tail = await service.getTail('s');
  expect(tail).not.toBeNull();
  return tail!;
}

const shape = (row: TimelineRow) => ({ kind: row.kind, seqs: row.seqs });

describe('tail-first opening', () => {
  it('answers the tail page of a big session before the read from its start has read anything', async () => {
    const { root, wal } = writeSession(BIG_BYTES, false, 91);
    const size = fs.statSync(wal).size;
    expect(size).toBeGreaterThan(4 * READ_SLICE_BYTES);
    const service = await open(root);
    const tail = await tailOf(service);
    // Found with nothing of the head read: not built from the read from offset 0.
    expect(tail.scanned_at_head_bytes).toBe(0);
    expect(tail.head_bytes_read).toBe(0);
    // Seen apart from the tail's own word: the read from the start has indexed no record yet.
    expect((await service.getRows('s', 'records', 0, 1)).total).toBe(0);
    expect(tail.provisional).toBe(true);
    expect(tail.total_bytes).toBe(size);
    expect(tail.records.length).toBeGreaterThan(10);
    expect(tail.records[0]!.offset).toBeGreaterThan(size - tail.window_bytes - 1);
    const last = tail.records.at(-1)!;
    expect(last.offset + last.size_bytes).toBe(size);
    expect(last.type).toBe('run_finished');
    expect(tail.timeline.length).toBeGreaterThan(0);
    // Nothing provisional is acted on: no action is offered while the read is under way.
    expect((await service.getSession('s')).actions).toEqual([]);
    expect((await service.getSession('s')).summary.status).toBe('loading');
  }, TEST_MS_MAX);

  const agreement = [
    { label: 'long-tailed outputs', bytes: BIG_BYTES, small_outputs: false, steps_per_run: undefined, from: null },
    { label: 'small outputs: the last episode folded from its start', bytes: MEDIUM_BYTES, small_outputs: true, steps_per_run: undefined, from: 'episode_start' },
    { label: 'one episode longer than the window: its records as they are', bytes: 24 * 1_048_576, small_outputs: false, steps_per_run: 100_000, from: 'records' },
  ] as const;
  for (const { label, bytes, small_outputs, steps_per_run, from } of agreement) {
    it(`shows provisional rows that agree with the real ones once the session is read (${label})`, async () => {
      const { root } = writeSession(bytes, small_outputs, 92, steps_per_run);
      const service = await open(root);
      const tail = await tailOf(service);
      if (from !== null) expect(tail.timeline_from).toBe(from);
      await service.whenRead();
      expect(await service.getTail('s')).toBeNull();
      const detail = await service.getSession('s');
      const total = detail.rows.records;
      const real = (await service.getRows('s', 'records', total - tail.records.length, tail.records.length)).rows;
      expect(tail.records).toEqual(real.map(({ index: _index, ...row }) => row));
      const timeline_total = detail.rows.timeline;
      if (tail.timeline_from === 'episode_start') {
        const real_rows = (await service.getRows('s', 'timeline', timeline_total - tail.timeline.length, tail.timeline.length)).rows;
        expect(tail.timeline.map(shape)).toEqual(real_rows.map(shape));
      } else {
        expect(tail.note).toContain('the last episode began before');
        expect(tail.timeline.map((row) => row.seqs[0])).toEqual(tail.records.filter((row) => row.seq > 0).map((row) => row.seq));
      }
    }, TEST_MS_MAX);
  }

  it('lays out the tail\'s rows from the frames it found and checked: no record is read back from disk for them', async () => {
    const { root } = writeSession(MEDIUM_BYTES, true, 94);
    const model = new SessionModel('s', sessionTarget(sessionDir(root, 's')));
    model.findTail();
    const tail = model.tail()!;
    expect(tail.timeline_from).toBe('episode_start');
    expect(tail.timeline.filter((row) => row.kind === 'call').length).toBeGreaterThan(0);
    expect(model.payloads_read).toBe(0);
    // The rows are the ones the read from the start lays out, outputs and all (but the episode's number).
    while (!model.refresh(undefined, { slice_bytes: READ_SLICE_BYTES }).complete);
    const total = model.rowCounts().timeline;
    const real = model.rows('timeline', total - tail.timeline.length, tail.timeline.length).rows;
    expect(tail.timeline).toEqual(real.map((row) => (row.episode === null ? row : { ...row, episode: 0 })));
  }, TEST_MS_MAX);

  it('shows the tail of a torn WAL, then the torn tail the read finds at the same offset', async () => {
    const { root, wal } = writeSession(MEDIUM_BYTES, true, 93);
    const intact = fs.statSync(wal).size;
    const whole = fs.readFileSync(wal);
    // A partial copy of the last frame appended: a frame the writer never finished.
    const last = readWal(wal).checkpoint!.offset;
    const last_start = whole.lastIndexOf(Buffer.from('BWAL'), last - 1);
    fs.appendFileSync(wal, whole.subarray(last_start, last_start + 30));
    const service = await open(root);
    const tail = await tailOf(service);
    expect(tail.scanned_at_head_bytes).toBe(0);
    expect(tail.torn_tail).toEqual({ offset: intact, bytes: 30 });
    expect(tail.records.at(-1)!.offset + tail.records.at(-1)!.size_bytes).toBe(intact);
    await service.whenRead();
    expect(await service.getTail('s')).toBeNull();
    const detail = await service.getSession('s');
    expect(detail.summary.torn_tail).toEqual({ offset: intact, bytes: 30 });
    expect(detail.integrity.torn_tail).toMatchObject({ offset: intact, bytes: 30 });
  }, TEST_MS_MAX);

  it('shows the tail of a WAL damaged in its middle, then the refusal the read finds', async () => {
    const { root, wal } = writeSession(MEDIUM_BYTES, true, 94);
    const bytes = fs.readFileSync(wal);
    // Near the end, so the scan past the damage the session view makes (engine/damage-scan.ts) stays short.
    const damage_at = bytes.length - 300_000;
    bytes[damage_at] = bytes[damage_at]! ^ 0x55;
    fs.writeFileSync(wal, bytes);
    const service = await open(root);
    const tail = await tailOf(service);
    expect(tail.scanned_at_head_bytes).toBe(0);
    expect(tail.records.at(-1)!.type).toBe('run_finished');
    expect(tail.records.every((row) => row.offset > damage_at)).toBe(true);
    await service.whenRead();
    expect(await service.getTail('s')).toBeNull();
    const detail = await service.getSession('s');
    expect(detail.summary.status).toBe('damaged');
    expect(detail.integrity.error?.kind).toBe('non_tail_corruption');
    expect(detail.integrity.error!.offset!).toBeLessThanOrEqual(damage_at);
    expect(detail.actions.every((action) => !action.applies)).toBe(true);
  }, TEST_MS_MAX);

  it('carries the tail over HTTP, its argument checked where the request enters', async () => {
    const { root } = writeSession(MEDIUM_BYTES, true, 96);
    const service = await open(root);
    const server = await startServer({ api: service, renderer_dir: tempDir(), port: 0 });
    try {
      const post = async (args: unknown[]) => {
        const response = await fetch(`http://127.0.0.1:${server.port}/api/getTail`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-walscope-token': server.token }, body: JSON.stringify({ args }) });
        return { status: response.status, body: (await response.json()) as SessionTail & { error?: string } };
      };
      expect(await post([42])).toMatchObject({ status: 400, body: { error: 'getTail: key must be a session key (text)' } });
      const answer = await post(['s']);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ key: 's', provisional: true, scanned_at_head_bytes: 0 });
      expect(answer.body.records.at(-1)!.type).toBe('run_finished');
    } finally {
      await server.close();
    }
  }, TEST_MS_MAX);

  it('finds no tail for a WAL read in one slice: it is read at once', async () => {
    const { root } = writeSession(256 * 1024, true, 95);
    const service = await open(root);
    expect(await service.getTail('s')).toBeNull();
    expect((await service.getSession('s')).summary.status).not.toBe('loading');
  }, TEST_MS_MAX);
});
