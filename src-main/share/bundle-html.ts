// A bundle as one HTML page (docs/share.md): the report's facts, every episode's timeline, the transcript and each
// step's request as the model saw it, readable from file:// with no server and no network. Every text goes
// through the escaping writer (html-writer.ts); the one script is this file's constant, allowed by its hash under
// a Content-Security-Policy that allows nothing else; it only clones the page's own message nodes into the
// request view, by the numbers of a JSON block that holds numbers only. Within `size_bytes_max`, what does not
// fit is left out and said to be, section by section, never cut silently.
import { createHash } from 'node:crypto';
import { messageText, originLabel } from '../../src-shared/compaction.js';
import { blockWords } from '../../src-shared/blocks.js';
import type { TimelineRow } from '../../src-shared/ipc.js';
import { iso, REPORT_STYLE, reportSections } from '../../src-shared/report-html.js';
import type { BundleMessage, BundleModel, BundleStep } from './bundle-model.js';
import { HtmlWriter, scriptJson, trusted } from './html-writer.js';
import { MANIFEST_ELEMENT_ID } from './redaction.js';

export const BUNDLE_FORMAT = 'walscope-bundle/1';
/** --max-bytes when none is given. */
export const BUNDLE_BYTES_DEFAULT = 20 * 1_048_576;
/** A message's text shown at most; the rest is left out and said to be. */
export const MESSAGE_TEXT_CHARS_MAX = 64 * 1024;
/** A timeline row's text shown at most. */
const ROW_TEXT_CHARS_MAX = 4_000;
/** Room kept for the notes of what was left out. */
const NOTES_BYTES_RESERVE = 8 * 1024;

const STYLE = `${REPORT_STYLE}
nav a{margin-right:12px}.msg{border:1px solid #ddd;margin:6px 0;padding:4px 8px;list-style-position:inside}.meta{color:#6b7280;font-size:12px}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0;font:12px/1.4 ui-monospace,monospace}.left-out{color:#b45309;font-weight:600}
#request-view{border:2px solid #94a3b8;padding:8px;min-height:40px}button{font:inherit;margin:1px 4px 1px 0}`;

const SCRIPT = `(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('walscope-requests').textContent);
  var view = document.getElementById('request-view');
  function show(index) {
    var step = data.steps[index];
    view.replaceChildren();
    var head = document.createElement('h3');
    head.textContent = 'Episode ' + step.episode + ', step ' + step.step_id + ': the request as the model saw it';
    view.appendChild(head);
    var about = document.getElementById('step-about-' + index);
    if (about) { var copy = about.cloneNode(true); copy.removeAttribute('id'); view.appendChild(copy); }
    var list = document.createElement('ol');
    step.runs.forEach(function (run) {
      for (var number = run[0]; number < run[1]; number++) {
        var node = document.getElementById('m' + number);
        if (node) { var clone = node.cloneNode(true); clone.removeAttribute('id'); list.appendChild(clone); }
        else { var note = document.createElement('li'); note.className = 'left-out'; note.textContent = 'message ' + number + ' is left out of this bundle (its size limit)'; list.appendChild(note); }
      }
    });
    view.appendChild(list);
    view.setAttribute('data-step-index', String(index));
  }
  document.querySelectorAll('button[data-step-index]').forEach(function (button) {
    button.addEventListener('click', function () { show(Number(button.getAttribute('data-step-index'))); });
  });
})();`;

export class BundleTooSmallError extends Error {
  override name = 'BundleTooSmallError';
}

/** The bundle's page, at most `size_bytes_max` bytes. */
export function bundleHtml(model: BundleModel, generated_ms: number, size_bytes_max = BUNDLE_BYTES_DEFAULT): string {
  const head = headOf(model, generated_ms);
  const tail = tailOf(model);
  const fixed = head.size_bytes + tail.size_bytes + NOTES_BYTES_RESERVE;
  if (fixed > size_bytes_max) throw new BundleTooSmallError(`the report's facts and the manifest alone take ${fixed} bytes: --max-bytes ${size_bytes_max} is too small for them`);
  const left_out: string[] = [];
  const budget = { left: size_bytes_max - fixed };
  // Room is given in this order, the page shown in its own: the list of steps (small, and the way to every
  // request), the transcript, the messages only earlier requests hold, then the timeline's rows.
  const shown = new Set<number>();
  const transcript_numbers = new Set(model.transcript);
  const steps = stepsSection(model, budget, left_out);
  const transcript = transcriptSection(model, budget, left_out, shown);
  const extra = extraMessages(model, steps.count, transcript_numbers, shown, budget, left_out);
  const timeline = timelineSection(model, budget, left_out);
  const body = new HtmlWriter().append(timeline).append(transcript).append(steps.writer.append(extra).close('section'));
  const notes = new HtmlWriter().open('section', { id: 'left-out' }).element('h2', 'Left out');
  if (left_out.length === 0) notes.element('p', `Nothing: the whole session is in this bundle (its limit: ${size_bytes_max} bytes).`, { 'data-left-out': 0 });
  else {
    notes.element('p', `This bundle stays within ${size_bytes_max} bytes (--max-bytes); it leaves out:`, { class: 'left-out', 'data-left-out': left_out.length }).open('ul');
    for (const note of left_out) notes.element('li', note);
    notes.close('ul');
  }
  notes.close('section');
  return new HtmlWriter().append(head).append(notes).append(body).append(tail).toString();
}

function headOf(model: BundleModel, generated_ms: number): HtmlWriter {
  const report = model.report;
  const csp = `default-src 'none'; script-src '${sha256Source(SCRIPT)}'; style-src '${sha256Source(STYLE)}'; base-uri 'none'; form-action 'none'`;
  const writer = new HtmlWriter().raw(trusted('<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'));
  writer.raw(trusted(`<meta http-equiv="Content-Security-Policy" content="${csp}"><meta name="referrer" content="no-referrer">`));
  writer.raw(trusted('<title>')).text(`walscope bundle: ${report.file.name}`).raw(trusted(`</title><style>${STYLE}</style></head><body>`));
  writer.raw(trusted('<h1>')).text(`walscope bundle: ${report.file.name}`).raw(trusted('</h1>'));
  writer.element('p', `Generated ${iso(generated_ms)} by walscope (${BUNDLE_FORMAT}, ${report.format}) from the file as received, read only. It opens from disk in any browser and reaches nothing outside it.`);
  const manifest = model.manifest;
  if (manifest === null) writer.element('p', 'Nothing is redacted: every text of the session is in this bundle as the WAL holds it.', { 'data-field': 'redaction' });
  else writer.element('p', `Redacted at share time (${manifest.classes.join(', ')}): ${manifest.entries.length} marker(s), each "⟦redacted CLASS #N: BYTES bytes, sha256 …⟧" with the length and SHA-256 of the original; the manifest (a JSON block in this page) says where each original is. Check them against the WAL with: walscope bundle --check-against WAL THIS_FILE.`, { 'data-field': 'redaction', class: 'warn' });
  writer.open('nav').element('a', 'Report', { href: '#report' }).element('a', 'Timeline', { href: '#timeline' }).element('a', 'Transcript', { href: '#transcript' }).element('a', 'Requests', { href: '#requests' }).close('nav');
  return writer.open('section', { id: 'report' }).raw(trusted(reportSections(report))).close('section');
}

function tailOf(model: BundleModel): HtmlWriter {
  const requests = { steps: model.steps.map((step) => ({ episode: step.episode, step_id: step.step_id, runs: step.runs })) };
  const writer = new HtmlWriter();
  writer.raw(trusted('<script type="application/json" id="walscope-requests">')).raw(scriptJson(requests)).raw(trusted('</script>'));
  if (model.manifest !== null) writer.raw(trusted(`<script type="application/json" id="${MANIFEST_ELEMENT_ID}">`)).raw(scriptJson(model.manifest)).raw(trusted('</script>'));
  return writer.raw(trusted(`<script>${SCRIPT}</script></body></html>\n`));
}

function timelineSection(model: BundleModel, budget: { left: number }, left_out: string[]): HtmlWriter {
  const writer = new HtmlWriter().open('section', { id: 'timeline' }).element('h2', `Timeline (${model.timeline.length} rows)`);
  writer.open('table').open('thead').open('tr').element('th', 'Episode', { scope: 'col' }).element('th', 'Seq', { scope: 'col' }).element('th', 'Row', { scope: 'col' }).element('th', 'What', { scope: 'col' }).close('tr').close('thead').open('tbody');
  budget.left -= writer.size_bytes + 40;
  let shown = 0;
  for (const row of model.timeline) {
    const line = new HtmlWriter().open('tr', { 'data-kind': row.kind }).element('td', row.episode === null ? '—' : String(row.episode)).element('td', row.seqs.join(', ')).element('td', row.kind).open('td').element('pre', cut(rowText(row), ROW_TEXT_CHARS_MAX)).close('td').close('tr');
    if (line.size_bytes > budget.left) break;
    budget.left -= line.size_bytes;
    writer.append(line);
    shown++;
  }
  if (shown < model.timeline.length) left_out.push(`${model.timeline.length - shown} of the timeline's ${model.timeline.length} rows (the last ones)`);
  return writer.close('tbody').close('table').close('section');
}

function transcriptSection(model: BundleModel, budget: { left: number }, left_out: string[], shown: Set<number>): HtmlWriter {
  const writer = new HtmlWriter().open('section', { id: 'transcript' }).element('h2', `Transcript: the session's next request (${model.transcript.length} messages)`);
  for (const problem of model.transcript_problems) writer.element('p', `${problem.kind}: ${problem.message}`, { class: 'bad' });
  writer.open('ol');
  budget.left -= writer.size_bytes + 20;
  let count = 0;
  for (const number of model.transcript) {
    const item = messageItem(number, model.messages[number]!);
    if (item.size_bytes > budget.left) break;
    budget.left -= item.size_bytes;
    writer.append(item);
    shown.add(number);
    count++;
  }
  if (count < model.transcript.length) left_out.push(`${model.transcript.length - count} of the transcript's ${model.transcript.length} messages (the last ones)`);
  return writer.close('ol').close('section');
}

function stepsSection(model: BundleModel, budget: { left: number }, left_out: string[]): { writer: HtmlWriter; count: number } {
  const writer = new HtmlWriter().open('section', { id: 'requests' }).element('h2', `Each step's request as the model saw it (${model.steps.length} steps)`);
  writer.element('p', 'Choose a step: its request is shown below the list, message by message, as it was sent.');
  writer.open('ol');
  budget.left -= writer.size_bytes + 200;
  let count = 0;
  for (const [index, step] of model.steps.entries()) {
    const item = stepItem(index, step);
    if (item.size_bytes > budget.left) break;
    budget.left -= item.size_bytes;
    writer.append(item);
    count++;
  }
  writer.close('ol').open('div', { id: 'request-view', 'aria-live': 'polite' }).element('p', 'No step chosen yet.').close('div');
  const missing = model.steps.length - count + model.steps_left_out;
  if (missing > 0) left_out.push(`the requests of ${missing} of the session's ${model.steps.length + model.steps_left_out} steps (the last ones)`);
  return { writer, count };
}

/** The messages of the first `steps` requests that the transcript does not hold (turns a compaction view stands in
 *  for now, a turn cut by a crash) and that it does not show, for the request view to show. */
function extraMessages(model: BundleModel, steps: number, transcript: ReadonlySet<number>, shown: ReadonlySet<number>, budget: { left: number }, left_out: string[]): HtmlWriter {
  const extra = new HtmlWriter().open('ol', { id: 'request-messages', hidden: 'hidden' });
  const wanted = new Set<number>();
  for (const step of model.steps.slice(0, steps)) for (const [from, to] of step.runs) for (let number = from; number < to; number++) if (!shown.has(number)) wanted.add(number);
  let extras = 0;
  let dropped_transcript = 0;
  for (const number of wanted) {
    // A transcript message the transcript had no room for has none here either.
    if (transcript.has(number)) {
      dropped_transcript++;
      continue;
    }
    const item = messageItem(number, model.messages[number]!);
    if (item.size_bytes > budget.left) break;
    budget.left -= item.size_bytes;
    extra.append(item);
    extras++;
  }
  const missing = wanted.size - dropped_transcript - extras;
  if (missing > 0) left_out.push(`${missing} message(s) that only earlier requests hold (the request view says which)`);
  return extra.close('ol');
}

function stepItem(index: number, step: BundleStep): HtmlWriter {
  const item = new HtmlWriter().open('li').open('button', { type: 'button', 'data-step-index': index }).text(`Episode ${step.episode}, step ${step.step_id}`).close('button');
  const view = step.view === null ? 'no compaction view' : `view ${step.view.view_id} v${step.view.version} replaces steps 1–${step.view.through_step}`;
  item.open('span', { id: `step-about-${index}` }).text(`${step.message_count} messages, ${step.size_bytes} bytes, ${view}`);
  for (const problem of step.problems) item.element('strong', ` · ${problem.kind}: ${problem.message}`, { class: 'bad' });
  return item.close('span').close('li');
}

function messageItem(number: number, entry: BundleMessage): HtmlWriter {
  const role = typeof entry.message['role'] === 'string' ? entry.message['role'] : '?';
  const item = new HtmlWriter().open('li', { id: `m${number}`, class: 'msg', 'data-role': role });
  item.element('div', `#${number} · ${role} · ${originLabel(entry.origin, entry.origin.episode)} (episode ${entry.origin.episode})`, { class: 'meta' });
  return item.element('pre', cut(messageText(entry.message), MESSAGE_TEXT_CHARS_MAX)).close('li');
}

function rowText(row: TimelineRow): string {
  switch (row.kind) {
    case 'episode':
      return `run ${row.run_id ?? '?'} · ${row.state_word}${row.finish_reason === null ? '' : ` · ${row.finish_reason}`}${row.first_ms === null || row.last_ms === null ? '' : ` · ${iso(row.first_ms)} – ${iso(row.last_ms)}`}`;
    case 'input':
      return `${row.role}: ${row.text}`;
    case 'steer':
      return `steer${row.title === null ? '' : ` "${row.title}"`}: ${row.text}`;
    case 'step':
      return `step ${row.step_id}${row.in_flight ? ' (in flight)' : ''}: ${row.blocks.map(blockWords).join('\n')}`;
    case 'note':
      return `${row.type}: ${row.summary}`;
    case 'batch':
      return `batch ${row.batch_id}`;
    case 'call':
      return `${row.call.name} ${row.call.tool_call_id} · ${row.call.class}${row.call.outcome === null ? '' : ` · ${row.call.outcome}`}${row.call.is_error ? ' · error' : ''}${row.call.args_gist === null ? '' : `\n→ ${row.call.args_gist}`}${row.call.output_line === null ? '' : `\n← ${row.call.output_line}`}`;
    case 'approval':
      return `approval of ${row.tool_call_id}: ${row.decision ?? 'pending'}`;
    case 'event':
      return `${row.type}: ${row.summary}`;
    case 'anomaly':
      return `${row.anomaly}: ${row.message}`;
  }
}

function cut(text: string, chars_max: number): string {
  return text.length <= chars_max ? text : `${text.slice(0, chars_max)}\n… ${text.length - chars_max} more characters left out of this bundle`;
}

function sha256Source(text: string): string {
  return `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;
}
