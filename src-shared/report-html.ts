// The support report as one self-contained HTML page: inline style only, no script, no external resource, so
// it opens anywhere and runs nothing. Every text that came from the WAL (and every other text) goes through
// `escapeHtml`; nothing is ever inserted as markup.
import type { ReportEpisode, SupportReport } from './report.js';
import { formatBytes } from './format.js';
import { STATUS_TONE, statusLabel, type StatusTone } from './status.js';
import { attentionLabel, CLASS_WORDS, FINDING_WORDS, planLabel } from './words.js';

const TONE_CLASS: Record<StatusTone, string> = { good: 'ok', bad: 'bad', warn: 'warn', held: 'warn', info: '', neutral: '' };

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

const e = (value: string | number | boolean | null | undefined): string => escapeHtml(value === null || value === undefined ? '—' : String(value));

/** The report's style, which a share bundle uses too. */
export const REPORT_STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:24px;max-width:1100px;color:#1d2026}
h1{font-size:20px}h2{font-size:16px;margin-top:24px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;width:100%;margin:6px 0}th,td{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:#f6f7f9}.mono{font-family:ui-monospace,monospace}.warn{color:#b45309;font-weight:600}.bad{color:#b91c1c;font-weight:600}.ok{color:#15803d}
dl{display:grid;grid-template-columns:220px 1fr;gap:2px 12px}dt{color:#6b7280}dd{margin:0}`;

/** JSON inside a `<script type="application/json">` block, which no browser runs: no `<`, `>` or `&` (so no
 *  `</script>` or `<!--`) and no line separators, each written as its \\u escape, read back the same by JSON.parse. */
export function jsonBlockText(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The page; `data`: JSON blocks it carries (a redaction manifest), by element id. */
export function reportHtml(report: SupportReport, data: readonly { id: string; value: unknown }[] = []): string {
  const parts = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    // No script, no network: the page declares it, so a browser enforces it even if text slipped through.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    `<title>walscope report: ${e(report.file.name)}</title><style>${REPORT_STYLE}</style></head><body>`,
    `<h1>walscope support report: <span class="mono">${e(report.file.name)}</span></h1>`,
    `<p>Generated ${e(iso(report.generated_ms))} by walscope (${e(report.format)}). The file was read only; nothing was written.</p>`,
    reportSections(report),
    ...data.map((block) => `<script type="application/json" id="${e(block.id)}">${jsonBlockText(block.value)}</script>`),
    '</body></html>',
  ];
  return `${parts.join('\n')}\n`;
}

/** The report's sections, every text escaped: the page above, and a share bundle's first part (src-main/share). */
export function reportSections(report: SupportReport): string {
  const parts = [
    section('File as received', dl([
      ['Name', report.file.name],
      ['Size', `${formatBytes(report.file.size_bytes)} (${report.file.size_bytes} bytes)`],
      ['SHA-256', report.file.sha256],
      ['Session', report.session],
      ['WAL id', report.wal_id],
    ])),
    integrity(report),
    section('Run', `<p class="${TONE_CLASS[STATUS_TONE[report.run.status]]}" data-field="run-status" data-status="${e(report.run.status)}"><strong>${e(statusLabel(report.run.status, report.run.finish?.reason ?? null))}</strong>: ${e(report.run.detail)}</p>` +
      (report.run.attention === null ? '' : `<p class="warn" data-field="attention">Needs attention (${e(attentionLabel(report.run.attention.kind))}): ${e(report.run.attention.message)}</p>`) +
      (report.run.unconfirmed.length === 0 ? '' : `<ul>${report.run.unconfirmed.map((call) => `<li class="${call.acknowledged === null ? 'warn' : ''}">${e(call.tool_call_id)}: ${e(call.may_have)}${call.acknowledged === null ? '' : ` — checked: ${e(FINDING_WORDS[call.acknowledged.finding].label)}, by ${e(call.acknowledged.operator)}`}</li>`).join('')}</ul>`) +
      `<p>Tool results recorded as errors: ${e(report.run.error_results)}</p>`),
    lineage(report),
    ...report.episodes.map(episode),
    section('Resume plan', `<p><strong data-action="${e(report.resume.action)}">${e(planLabel(report.resume.action))}</strong>: ${e(report.resume.message)}</p>` +
      (report.resume.records.length === 0 ? '<p>It would append nothing.</p>' : `<ol>${report.resume.records.map((record) => `<li>barrier ${e(record.barrier + 1)}: ${e(record.type)}</li>`).join('')}</ol>`)),
    recoveries(report),
    totals(report),
  ];
  return parts.join('\n');
}

function integrity(report: SupportReport): string {
  const facts = report.integrity;
  const rows: [string, string | number | null][] = [
    ['Verdict', facts.verdict],
    ['Summary', facts.summary],
    ['Intact', `${facts.intact.records} record(s), ${facts.intact.frames} frame(s), last seq ${facts.intact.last_seq}, ${facts.intact.bytes} bytes`],
  ];
  if (facts.damage !== null) rows.push(['Damage', `${facts.damage.kind} at offset ${facts.damage.offset ?? '?'}: ${facts.damage.message}`]);
  if (facts.after_damage !== null) {
    const after = facts.after_damage;
    rows.push(['After the damage (unverified, unused)', `${after.records} intact record(s)${after.records === 0 ? '' : `, seq ${after.seq_first}–${after.seq_last}`}; ${after.frames} frame(s); ${after.unaccounted_bytes} byte(s) no intact frame covers${after.scan_cut ? '; the scan stopped at its limit' : ''}`]);
  }
  rows.push(['Lost', facts.lost]);
  if (facts.ask_customer !== null) rows.push(['Ask the customer', facts.ask_customer]);
  return section('Integrity', `<div class="${facts.verdict === 'intact' ? 'ok' : 'bad'}" data-field="verdict">${e(facts.verdict)}</div>${dl(rows)}`);
}

function lineage(report: SupportReport): string {
  if (report.lineage.length === 0) return section('Lineage', '<p>No lineage frame was read.</p>');
  const rows = report.lineage.map((frame) => `<tr><td>${e(frame.offset)}</td><td class="mono">${e(frame.wal_id)}</td><td>${e(frame.fence)}</td><td>${e(frame.writer)}</td><td>${e(frame.created_ms === null ? null : iso(frame.created_ms))}</td></tr>`);
  return section('Lineage (one frame per writer that opened it)', table(['Offset', 'WAL id', 'Epoch', 'Writer', 'Opened'], rows));
}

function episode(entry: ReportEpisode): string {
  const head = dl([
    ['Run', entry.run_id],
    ['State', entry.state],
    ['Finished as', entry.finish_reason],
    ['Model steps', entry.steps],
    ['Failed model attempts', entry.failed_attempts],
    ['Tokens', tokens(entry.tokens)],
    ['Time', span(entry.first_ms, entry.last_ms)],
  ]);
  const rows = entry.calls.map((call) => `<tr><td class="mono">${e(call.tool_call_id)}</td><td>${e(call.name)}</td><td class="${call.class === 'completed' && !call.is_error ? 'ok' : 'warn'}" data-class="${e(call.class)}">${e(CLASS_WORDS[call.class].label)}${call.is_error ? ' <span class="bad">(is_error)</span>' : ''}</td><td>${e(call.outcome)}</td><td>${e(call.why)}</td></tr>`);
  return section(`Episode ${entry.episode}`, head + (rows.length === 0 ? '<p>No tool calls.</p>' : table(['Call', 'Tool', 'Class', 'Outcome', 'Why'], rows)));
}

function recoveries(report: SupportReport): string {
  if (report.recoveries.length === 0) return section('Recovery history', '<p>No recovery action (operator_action) is recorded.</p>');
  const rows = report.recoveries.map((entry) => `<tr><td>${e(entry.ts_ms === null ? null : iso(entry.ts_ms))}</td><td>${e(entry.action)}</td><td>${e(entry.operator)} via ${e(entry.via)}</td><td>${e(entry.reason)}</td><td class="mono">${e(entry.records.map((record) => `${record.type}@${record.seq}`).join(', '))}</td></tr>`);
  return section('Recovery history', table(['When', 'Action', 'Who', 'Why', 'Records written'], rows));
}

function totals(report: SupportReport): string {
  const facts = report.totals;
  return section('Totals', dl([
    ['Tokens', tokens(facts.tokens)],
    ['Failed model attempts', facts.failed_attempts],
    ['Time', facts.times_recorded ? span(facts.first_ms, facts.last_ms) : 'this WAL records no times'],
  ]));
}

function tokens(sums: Record<string, number>): string {
  const entries = Object.entries(sums);
  return entries.length === 0 ? 'no usage recorded' : entries.map(([key, value]) => `${key} ${value}`).join(', ');
}

function span(first_ms: number | null, last_ms: number | null): string {
  if (first_ms === null || last_ms === null) return 'no times recorded';
  return `${iso(first_ms)} – ${iso(last_ms)} (${((last_ms - first_ms) / 1000).toFixed(3)} s)`;
}

export function iso(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? String(ms) : date.toISOString();
}

function section(title: string, body: string): string {
  return `<section><h2>${e(title)}</h2>${body}</section>`;
}

function dl(rows: readonly (readonly [string, string | number | null])[]): string {
  return `<dl>${rows.map(([key, value]) => `<dt>${e(key)}</dt><dd>${e(value)}</dd>`).join('')}</dl>`;
}

function table(headers: string[], rows: string[]): string {
  return `<table><thead><tr>${headers.map((header) => `<th scope="col">${e(header)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}
