// `verify` of a session's archive: every header read from offset 0 (the index is judged, never trusted), and
// every sealed member's content hashed and read as a WAL. Read-only.
import type { ArchiveReport } from '../../src-shared/wal.js';
import { archiveIndexPath } from './archive-format.js';
import { openMember } from './archive-member.js';
import { readArchive } from './archive-reader.js';
import { nodeFileIO, type FileIO } from './file-io.js';
import { hex } from './reader.js';

/** null when the session has neither an archive nor an index: a history of one lineage. */
export function verifyArchive(session_dir: string, floor_features: readonly string[], io: FileIO = nodeFileIO, full_scan = false): ArchiveReport | null {
  const scan = readArchive(session_dir, { io, trust_index: false, full_scan });
  if (!scan.present && scan.error === null && scan.index === 'missing' && indexAbsent(io, session_dir)) return null;
  const damaged_members: string[] = [];
  for (const member of scan.members) {
    if (member.reason !== 'sealed') continue;
    const opened = openMember(session_dir, member, { io, with_payload: false, floor_features, full_tail_scan: full_scan });
    if (!opened.ok || opened.read.error !== null || opened.read.torn_tail !== null) damaged_members.push(hex(member.wal_id));
  }
  return {
    index: scan.index,
    members: scan.members.length,
    torn_tail: scan.torn_tail === null ? null : { offset: scan.torn_tail.offset, bytes: scan.torn_tail.bytes },
    error: scan.error,
    damaged_members,
  };
}

function indexAbsent(io: FileIO, session_dir: string): boolean {
  try {
    return io.stat(archiveIndexPath(session_dir)) === null;
  } catch {
    return false; // something is there that cannot be looked at: readArchive named it as the index's problem
  }
}
