// The Timeline's filter bar: errors only, a call class, a tool, a record type (each offered from what the session
// holds), the count of rows kept, and the way back to all rows. `f` focuses it (session-keys.ts); the filter is in
// the address (location.ts). The service applies it (services/timeline-filter.ts).
import type { RefObject } from 'react';
import type { FilteredTimeline, SessionDetail } from '../../src-shared/ipc.js';
import type { CallClass } from '../../src-shared/replay.js';
import { ALL_ROWS, filterSet, type TimelineFilter } from '../../src-shared/timeline-filter.js';
import { CLASS_WORDS, ERRORS_ONLY_WORDS } from '../../src-shared/words.js';

export function TimelineFilterBar({ detail, filter, counts, box, onFilter }: {
  detail: SessionDetail;
  filter: TimelineFilter;
  counts: Omit<FilteredTimeline, 'rows'> | undefined;
  /** The bar's first control, which `f` focuses. */
  box: RefObject<HTMLInputElement | null>;
  onFilter: (filter: TimelineFilter) => void;
}) {
  const classes = Object.entries(detail.summary.class_counts).map(([name, calls]) => ({ value: name, text: `${CLASS_WORDS[name as CallClass].label} (${calls!.toLocaleString()})` }));
  const tools = detail.filter_choices.tools.map((tool) => ({ value: tool.name, text: `${tool.name} (${tool.calls.toLocaleString()})` }));
  const types = detail.filter_choices.record_types.map((type) => ({ value: type, text: type }));
  const set = filterSet(filter);
  return (
    <div className="filter-bar" role="group" aria-label="Filter the timeline (f)" data-testid="filter-bar">
      <label className="filter-errors" title={ERRORS_ONLY_WORDS.meaning}>
        <input ref={box} type="checkbox" checked={filter.errors} onChange={(event) => onFilter({ ...filter, errors: event.target.checked })} data-testid="filter-errors" /> {ERRORS_ONLY_WORDS.label}
      </label>
      <Choice label="call class" value={filter.call_class} options={classes} onChange={(call_class) => onFilter({ ...filter, call_class: call_class as CallClass | null })} testid="filter-class" />
      <Choice label="tool" value={filter.tool} options={tools} onChange={(tool) => onFilter({ ...filter, tool })} testid="filter-tool" />
      <Choice label="record type" value={filter.record_type} options={types} onChange={(record_type) => onFilter({ ...filter, record_type })} testid="filter-type" />
      <span className="muted filter-count" role="status" data-testid="filter-count" data-complete={counts?.complete}>{set ? countText(counts) : ''}</span>
      {set && <button type="button" onClick={() => onFilter(ALL_ROWS)} data-testid="filter-clear">Show all rows</button>}
    </div>
  );
}

/** One of the filter's choices: "any …", then what the session holds; a value the address named and the session
 *  does not hold stays listed, so the control says what is applied. Its label is its first option (the pane is
 *  ~600 px wide beside the side pane at 1,400 px). */
function Choice({ label, value, options, onChange, testid }: { label: string; value: string | null; options: { value: string; text: string }[]; onChange: (value: string | null) => void; testid: string }) {
  const listed = value === null || options.some((option) => option.value === value) ? options : [...options, { value, text: `${value} (none here)` }];
  return (
    <select value={value ?? ''} onChange={(event) => onChange(event.target.value === '' ? null : event.target.value)} aria-label={label} title={label} data-testid={testid} data-set={value !== null}>
      <option value="">any {label}</option>
      {listed.map((option) => <option key={option.value} value={option.value}>{option.text}</option>)}
    </select>
  );
}

/** "12 of 3,401 rows" (and the rows shown around them for context); "+" and "filtering…" while the walk is under
 *  way, never "none" before it is complete. */
function countText(counts: Omit<FilteredTimeline, 'rows'> | undefined): string {
  if (counts === undefined) return 'filtering…';
  const more = counts.complete && !counts.truncated ? '' : '+';
  const context = counts.total - counts.matched;
  const around = context === 0 ? '' : ` · ${context.toLocaleString()} more for context`;
  const walking = counts.complete ? '' : ' · filtering…';
  if (counts.complete && counts.matched === 0) return `no row of ${counts.of.toLocaleString()} matches`;
  return `${counts.matched.toLocaleString()}${more} of ${counts.of.toLocaleString()} rows${around}${walking}`;
}
