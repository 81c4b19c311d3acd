// Crashing retention (wal-format §11): the scripted retire session runs on a simulated disk; at its crash point
// the process dies and the disk is rebuilt as the image says (synced, all, random); the next process drives
// the same script from what the disk holds, and may die again. Every persistence point of retiring — the member
// append and its barrier, the successor's write, sync and rename, the index's write and rename, every folder
// sync — is a crash point, because the engine does all of it through the FileIO seam. After every image:
//   - no retired lineage is lost: each acknowledged retire's lineage is the live `wal`, a whole digest-valid
//     member (sealed), or a tombstone (deleted);
//   - counters never regress: no lineage starts below its parent, and no runner tag or notice number repeats;
//   - a stale index never hides a member: the index-trusting read finds exactly what reading every header finds;
//   - a lookup never reports absence without coverage: every retired lineage is found;
//   - a retire that died after step 1 is finished by the next ordinary writer (§11): once the runtime's writer
//     opened the session, that lineage is no longer live, its successor names it, and its member is whole;
// and once settled, the index covers the whole archive (a retire that died after step 2 is finished too, by
// the writer that appends the next records), and one more process changes nothing: retiring is idempotent.
import assert from 'node:assert/strict';
import path from 'node:path';
import { appendAll } from '../../src-shared/arrays.js';
import {
  openMember, latestMember, readArchive, describe, type FileIO, findLineage, readHistory, hex, readWal, sessionDir,
  walPath, type RetireReason,
} from '../engine/index.js';
import { driveRetireScript, retireSession, type RetireScript } from '../runtime/retire-script.js';
import { CRASHES_PER_CASE_MAX, type CrashPoint } from './case.js';
import { IMAGE_KINDS, SimDisk, type ImageKind } from './disk.js';
import { Prng } from './prng.js';
import { SimProcess } from './sim-io.js';
import { SIM_ROOT } from './view.js';

export const RETIRE_CLOCK_START_MS = 1_760_000_000_000;

export type RetireInvariant = 'lineage_lost' | 'counter_regression' | 'index_hides_member' | 'absence_without_coverage' | 'history_unreadable' | 'retire_idempotent' | 'retire_unfinished' | 'index_unfinished' | 'process_error';

export interface RetireViolation {
  invariant: RetireInvariant;
  process: number;
  message: string;
}

export interface RetireSimResult {
  crashes: CrashPoint[];
  seed: number;
  violations: RetireViolation[];
  /** Mutations each process made before it ended or died. */
  mutations: number[];
  /** The first process's persistence points, `op file` in order: what a crash can fall between. */
  points: string[];
}

export interface RetireSimOptions {
  script?: RetireScript;
  /** Tests only: wraps each process's FileIO, to plant a bug (a dropped barrier) the invariants must catch. */
  wrap_io?: (io: FileIO) => FileIO;
  /** Tests only: false plants a writer that ignores an interrupted retire. */
  finish_interrupted_retire?: boolean;
}

export function simulateRetire(crashes: CrashPoint[], seed: number, options: RetireSimOptions = {}): RetireSimResult {
  const script = options.script ?? retireSession;
  const wrap = options.wrap_io ?? ((io: FileIO) => io);
  assert.ok(crashes.length <= CRASHES_PER_CASE_MAX, 'crashes per case');
  let disk = SimDisk.withFolder(SIM_ROOT);
  let now = RETIRE_CLOCK_START_MS;
  const now_ms = () => (now += 7);
  const retired = new Map<string, RetireReason>();
  const result: RetireSimResult = { crashes, seed, violations: [], mutations: [], points: [] };
  const note = (process: number, found: Omit<RetireViolation, 'process'>[]) => appendAll(result.violations, found.map((violation) => ({ ...violation, process })));
  for (let index = 0; index <= crashes.length; index++) {
    const point = crashes[index] ?? null;
    const proc = new SimProcess(disk, point?.after_mutations ?? null);
    let crashed = false;
    try {
      const observer = {
        retired: (wal_id: string, reason: RetireReason) => retired.set(wal_id, reason),
        writer_recovered: (wal_id: string) => note(index, checkFinished(disk, script, wal_id, retired)),
      };
      driveRetireScript(proc.at(SIM_ROOT), script, wrap(proc.io), now_ms, observer, { finish_interrupted_retire: options.finish_interrupted_retire });
    } catch (error) {
      crashed = proc.crashed;
      if (!crashed) note(index, [{ invariant: 'process_error', message: `process ${index} failed: ${error instanceof Error ? (error.stack ?? error.message) : describe(error)}` }]);
    }
    result.mutations.push(proc.mutations);
    if (index === 0) result.points = proc.effects.map((effect) => `${effect.op} ${path.basename(effect.path)}`);
    if (result.violations.length > 0) return result;
    if (crashed) {
      disk = disk.crashImage(point!.image, new Prng(seed, index));
      note(index, checkHistory(disk, script, retired));
      if (result.violations.length > 0) return result;
      continue;
    }
    note(index, [...checkHistory(disk, script, retired), ...checkIndexFinished(disk, script)]);
    note(index + 1, checkIdempotent(disk, script, now_ms, wrap));
    return result;
  }
  return result;
}

/** Every persistence point of the uncrashed script under every image kind: a crash just before each one. */
export function exhaustiveRetireSuite(images: readonly ImageKind[] = IMAGE_KINDS, options: RetireSimOptions = {}): { cases: number; points: number; failures: RetireSimResult[] } {
  const points = simulateRetire([], 0, options).mutations[0]!;
  const failures: RetireSimResult[] = [];
  let cases = 1;
  for (let point = 0; point < points; point++) {
    for (const [image_index, image] of images.entries()) {
      const result = simulateRetire([{ after_mutations: point, image }], point * IMAGE_KINDS.length + image_index, options);
      cases += 1;
      if (result.violations.length > 0) failures.push(result);
    }
  }
  return { cases, points, failures };
}

/** The state after an image, read as any reader would (a process of its own that never writes). */
export function checkHistory(disk: SimDisk, script: RetireScript, retired: ReadonlyMap<string, RetireReason>): Omit<RetireViolation, 'process'>[] {
  const reader = new SimProcess(disk, null);
  const dir = sessionDir(reader.at(SIM_ROOT), script.session_id);
  const io = reader.io;
  if (io.stat(walPath(dir)) === null) {
    return retired.size === 0 ? [] : [{ invariant: 'lineage_lost', message: `no wal, though ${retired.size} lineages were retired` }];
  }
  const found: Omit<RetireViolation, 'process'>[] = [];
  const history = readHistory(dir, { io });
  if (history.live_error !== null) found.push({ invariant: 'history_unreadable', message: `the live WAL is refused: ${history.live_error.message}` });
  const full = readArchive(dir, { io, trust_index: false });
  const trusting = readArchive(dir, { io, trust_index: true });
  if (full.error !== null) found.push({ invariant: 'history_unreadable', message: `the archive is refused: ${full.error.message}` });
  const offsets = (scan: typeof full) => scan.members.map((member) => `${hex(member.wal_id)}@${member.offset}`).join(',');
  if (offsets(full) !== offsets(trusting)) {
    found.push({ invariant: 'index_hides_member', message: `index ${trusting.index}: trusting it finds [${offsets(trusting)}], reading every header finds [${offsets(full)}]` });
  }
  for (const problem of history.problems) {
    const invariant = problem.kind === 'counter_regression' ? 'counter_regression' : problem.kind === 'missing_parent' ? 'lineage_lost' : 'history_unreadable';
    found.push({ invariant, message: problem.message });
  }
  appendAll(found, checkRetired(dir, io, retired));
  appendAll(found, repeatedNumbers(dir, io));
  return found;
}

/** Right after the ordinary writer opened the session: the retire of `wal_id` it found interrupted is finished,
 *  and that lineage is from now on retired for good (the other invariants then keep it). */
function checkFinished(disk: SimDisk, script: RetireScript, wal_id: string, retired: Map<string, RetireReason>): Omit<RetireViolation, 'process'>[] {
  const reader = new SimProcess(disk, null);
  const dir = sessionDir(reader.at(SIM_ROOT), script.session_id);
  const io = reader.io;
  const live = readHistory(dir, { io }).lineages.find((entry) => entry.where === 'live');
  const member = latestMember(readArchive(dir, { io }), wal_id);
  if (live === undefined || live.wal_id === wal_id || live.parent_wal_id !== wal_id || member === null) {
    return [{ invariant: 'retire_unfinished', message: `lineage ${wal_id} was archived by a retire that died after step 1, and the writer that opened the session left it ${live?.wal_id === wal_id ? 'live' : 'without a successor naming it'}` }];
  }
  retired.set(wal_id, member.reason);
  return [];
}

/** Once a process ran the script to its end: the index covers every member (none is owed any more). */
function checkIndexFinished(disk: SimDisk, script: RetireScript): Omit<RetireViolation, 'process'>[] {
  const reader = new SimProcess(disk, null);
  const archive = readArchive(sessionDir(reader.at(SIM_ROOT), script.session_id), { io: reader.io });
  if (!archive.present || archive.index === 'valid') return [];
  return [{ invariant: 'index_unfinished', message: `the script settled with archive.index ${archive.index}: ${archive.index_note ?? 'not covering the archive'}` }];
}

function checkRetired(dir: string, io: FileIO, retired: ReadonlyMap<string, RetireReason>): Omit<RetireViolation, 'process'>[] {
  const found: Omit<RetireViolation, 'process'>[] = [];
  const archive = readArchive(dir, { io, trust_index: true });
  for (const [wal_id, reason] of retired) {
    const lookup = findLineage(dir, wal_id, { io });
    if (!lookup.found) {
      const invariant = lookup.proven ? 'lineage_lost' : 'absence_without_coverage';
      found.push({ invariant, message: `retired lineage ${wal_id} (${reason}) is not found${lookup.proven ? ' after a covering read' : `: ${lookup.error.message}`}` });
      continue;
    }
    const member = latestMember(archive, wal_id);
    if (member === null || member.reason !== reason) {
      found.push({ invariant: 'lineage_lost', message: `retired lineage ${wal_id} is ${lookup.where}, not a ${reason} member` });
      continue;
    }
    if (reason === 'sealed' && !openMember(dir, member, { io, with_payload: false }).ok) {
      found.push({ invariant: 'lineage_lost', message: `sealed lineage ${wal_id}: its member is not whole and digest-valid` });
    }
  }
  return found;
}

/** Tags and notice numbers are handed out from the counters: one that repeats means a counter went back. */
function repeatedNumbers(dir: string, io: FileIO): Omit<RetireViolation, 'process'>[] {
  const seen = { tags: new Set<number>(), notices: new Set<number>() };
  const found: Omit<RetireViolation, 'process'>[] = [];
  const take = (kind: 'tags' | 'notices', value: unknown, where: string) => {
    if (typeof value !== 'number') return;
    if (seen[kind].has(value)) found.push({ invariant: 'counter_regression', message: `${kind === 'tags' ? 'runner tag' : 'notice_seq'} ${value} repeats (${where})` });
    seen[kind].add(value);
  };
  const on_frame = (where: string) => (frame: { type: string; payload: { [key: string]: unknown } | null }) => {
    if (frame.type === 'run_started') take('tags', frame.payload?.['tags'], where);
    if (frame.type === 'compaction_notice') take('notices', frame.payload?.['notice_seq'], where);
  };
  const archive = readArchive(dir, { io, trust_index: false });
  const live = readWal(walPath(dir), { io, on_frame: on_frame('live') });
  for (const member of archive.members) {
    if (live.wal_id !== null && hex(live.wal_id) === hex(member.wal_id)) continue; // the same lineage, retired mid-way
    openMember(dir, member, { io, on_frame: on_frame(`member ${hex(member.wal_id)}`) });
  }
  return found;
}

/** One more process on the settled disk: the archive, the index and the WAL stay byte for byte the same. */
function checkIdempotent(disk: SimDisk, script: RetireScript, now_ms: () => number, wrap: (io: FileIO) => FileIO): Omit<RetireViolation, 'process'>[] {
  const before = snapshot(disk, script);
  const proc = new SimProcess(disk, null);
  try {
    driveRetireScript(proc.at(SIM_ROOT), script, wrap(proc.io), now_ms);
  } catch (error) {
    return [{ invariant: 'retire_idempotent', message: `a further process failed: ${describe(error)}` }];
  }
  const after = snapshot(disk, script);
  return before === after ? [] : [{ invariant: 'retire_idempotent', message: 'a further process changed the wal, the archive or its index' }];
}

function snapshot(disk: SimDisk, script: RetireScript): string {
  const reader = new SimProcess(disk, null);
  const dir = sessionDir(reader.at(SIM_ROOT), script.session_id);
  return ['wal', 'archive', 'archive.index'].map((name) => reader.currentBytes(`${dir}/${name}`)?.toString('hex') ?? '-').join('|');
}
