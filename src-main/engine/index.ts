// The engine's face: everything the layers above use of it, and nothing else. Nothing outside src-main/engine/
// imports an engine file but this one (test/architecture.test.ts), so what the engine keeps to itself can change
// without a look above it; a name a layer above needs is added here, beside its module's others. The engine's
// own files import each other directly, never this one.
export { archiveIndexPath, archivePath, type RetireReason } from './archive-format.js';
export { extractSealedLineage, openMember } from './archive-member.js';
export { type ArchiveError, latestMember, readArchive } from './archive-reader.js';
export {
  CborDecoder, CborItemsExceeded, type CborProjection, decodeCbor, encodeCbor, encodedSize, headBytes, KeysSeen, MAJOR_ARRAY, MAJOR_MAP, MAJOR_TEXT,
  memberTable, type MemberTable, ReadBy, SCALAR, setOwn, ShortText, WHOLE,
} from './cbor.js';
export { jsonShapeCut, JsonTextCut, jsonValueCut } from './cbor-json-preview.js';
export { TextCut, textCut } from './cbor-text-cut.js';
export { scanAfterDamage } from './damage-scan.js';
export { RunDigests } from './digest-runs.js';
export { describe, LeaseHeldError, WalReadError } from './errors.js';
export { readFloor } from './feature-floor.js';
export { requiredFeatures } from './features.js';
export { cappedFileIO, type FileIO, type FileStat, nodeFileIO, type OpenMode } from './file-io.js';
export { type FrameAt, FrameFile, frameInBuffer, readFrameAt } from './frame-access.js';
export { decodeBody, encodeFrame, type PayloadDecoder } from './frame-codec.js';
export {
  exportTargets, parseMemberTarget, readTarget, resolveTargets, sessionTarget, TargetError, type TargetRead,
  VERIFY_DIGEST_WORKER_FILE_BYTES_MIN, verifyReportOf, verifyTarget, type WalTarget,
} from './inspect.js';
export { findLastFrames, type LastFrame, type LastFrames } from './last-frames.js';
export { type LeaseProbe, probeLease, readTenureFile } from './lease.js';
export { FRAME_DIGEST_BYTES, FRAME_HEADER_BYTES, FRAME_VER_PLAIN, MIB, READ_CHUNK_BYTES } from './limits.js';
export {
  findLineage, type HistoryOptions, historySteps, type LineageEntry, LineageFacts, type LineageProblem,
  type LineageRead, MemberReads, readHistory,
} from './lineage-chain.js';
export { highestTag } from './lineage-counters.js';
export { looksLike, readHead } from './not-a-wal.js';
export { osUser } from './os-user.js';
export { hex, ioError, type ReadCheckpoint, type ReadResult, readWal } from './reader.js';
export { previewRetire, retireLineage, type RetirePlan } from './retire.js';
export { startScriptWorker } from './script-worker.js';
export { type FrameSink, leaseSession, openSessionForWrite, type WritableSession } from './session.js';
export {
  classifyPath, floorPath, isValidSessionId, LEASE_FILE_NAME, leasePath, listSessions, sessionDir, SESSIONS_DIR_NAME,
  sessionsDir, stateFolderKind, WAL_FILE_NAME, walPath,
} from './state-root.js';
export { tornTailCopyPath, type WalWriter } from './writer.js';
