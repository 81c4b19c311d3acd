// A WAL's episodes as the fold makes them, for tests that check views episode by episode.
import type { EpisodeFold } from '../../src-shared/replay.js';
import { readWal } from '../../src-main/engine/reader.js';
import { SessionFolder } from '../../src-main/replay/fold.js';

export function episodesOf(wal: string): readonly EpisodeFold[] {
  const folder = new SessionFolder();
  readWal(wal, { on_frame: (frame) => folder.push(frame) });
  return folder.snapshot().episodes;
}
