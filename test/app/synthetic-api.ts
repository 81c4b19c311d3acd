// A stand-in for the session service with one export of `rows_total` synthetic records, installed as
// `window.walscope` before the renderer loads (the place the Electron preload puts the real one). The real
// renderer — session view, paging, the scaled list, the keyboard — then draws a million rows in Chromium
// without a million-record WAL behind it: writing and indexing one takes about a minute on a small machine.
// Row i is record seq i + 1 at a made-up offset, so any drawn row says which index it was fetched for.
// Serialized into the page by playwright: it must not refer to anything outside itself.
import type { RecordRow, RowList, RowPage, RowTypes, SessionDetail, SessionSummary, TimelineRow, WalscopeApi } from '../../src-shared/ipc.js';

export const SYNTHETIC_SESSION_KEY = 'million.wal';

export function installSyntheticApi({ rows_total, key }: { rows_total: number; key: string }): void {
  const frame_bytes = 76;
  const record = (index: number): RecordRow => ({
    index,
    offset: 8 + index * frame_bytes,
    size_bytes: frame_bytes,
    seq: index + 1,
    ver: 2,
    fence: 1,
    type: 'run_note',
    features: [],
    digest_algorithm: 'sha256',
  });
  const event = (index: number): TimelineRow => ({ kind: 'event', episode: 1, type: 'run_note', summary: `note ${index + 1}`, seqs: [index + 1] });
  const summary: SessionSummary = {
    key,
    session_id: null,
    status: 'idle',
    status_detail: 'synthetic',
    torn_tail: null,
    attention: null,
    plan: null,
    last_activity_ms: null,
    episodes: 1,
    records: rows_total,
    last_seq: rows_total,
    size_bytes: rows_total * frame_bytes,
    episode_state: 'running',
    finish_reason: null,
    class_counts: {},
    run: null,
    recoveries: [],
  };
  const detail: SessionDetail = {
    summary,
    wal_path: key,
    wal_id: null,
    read_only: true,
    lease: { state: 'absent' },
    integrity: { torn_tail: null, in_progress_tail: null, error: null },
    digest_algorithms: ['sha256'],
    features: [],
    rows: { timeline: rows_total, records: rows_total, transcript: 0 },
    resume: { kind: 'resume', action: 'none', episode: null, message: 'synthetic', replayed: { messages: 0, model_steps: 0, tool_results: 0 }, redone: [], indeterminate: [], records: [] },
    queue: [],
    actions: [],
    retire: { applies: false, why: 'synthetic' },
    acknowledge: { applies: false, why: 'synthetic' },
    timing: [],
    tokens: {},
    cost: { usd: null, models: [], priced_as: [], unknown_models: [], steps_priced: 0, steps_unpriced: 0, undated_steps: 0, from_run_totals: false, table: "none" },
    after_damage: null,
    transcript_valid: true,
    filter_choices: { tools: [], record_types: [] },
  };
  const refused = () => Promise.reject(new Error('not in the synthetic session'));
  const api: WalscopeApi = {
    getWorkspace: () => Promise.resolve({ path: `synthetic ${key}`, kind: 'export', read_only: true, not_sessions: [] }),
    listSessions: () => Promise.resolve([summary]),
    listPage: (filter, start) => Promise.resolve({ filter, start, total: 1, complete: true, rows: start === 0 ? [summary] : [], hosts: [] }),
    getSession: () => Promise.resolve(detail),
    getRows<L extends RowList>(_key: string, list: L, start: number, count: number): Promise<RowPage<L>> {
      const total = list === 'transcript' ? 0 : rows_total;
      const rows: RowTypes[RowList][] = [];
      for (let index = start; index < Math.min(total, start + count); index++) rows.push(list === 'records' ? record(index) : event(index));
      return Promise.resolve({ key, list, start, total, rows: rows as RowTypes[L][] });
    },
    getRecord: refused,
    getOutput: refused,
    locateSeq: (_key, seq) => Promise.resolve(seq >= 1 && seq <= rows_total ? seq - 1 : null),
    search: (_key, list, query) => Promise.resolve({ list, query, rows: [], truncated: false, complete: true }),
    filterTimeline: refused,
    previewAction: refused,
    getHistory: async () => ({ lineages: [], problems: [], archive: null, live_reading: false }),
    previewRetire: refused,
    runRetire: refused,
    runAction: refused,
    previewAcknowledge: refused,
    runAcknowledge: refused,
    getReport: refused,
    getBundle: refused,
    getContext: refused,
    // The synthetic session is read at once: it has no provisional tail.
    getTail: () => Promise.resolve(null),
    getAlerts: () => Promise.resolve({ revision: 0, looked: true, current: [], current_left_out: 0, recent: [], thresholds: null }),
    getTiming: refused,
    compareSessions: refused,
    subscribe: () => () => undefined,
  };
  window.walscope = api;
}
