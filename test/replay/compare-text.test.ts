// The texts two sessions are compared by (replay/compare-text.ts): where two texts part, their word diff (jsdiff,
// bounded), and blocks compared without the ids each run mints.
import { describe, expect, it } from 'vitest';
import { blockText, COMPARED_HEAD_CHARS, comparedText, partingWords, sameText, wordDiff } from '../../src-main/replay/compare-text.js';

describe('compared texts', () => {
  it('say where two texts part, and which goes on', () => {
    expect(partingWords(comparedText('abc def'), comparedText('abc xyz'))).toBe('after 4 identical characters');
    expect(partingWords(comparedText('x'), comparedText('y'))).toBe('from their first character');
    expect(partingWords(comparedText('abc'), comparedText('abcdef'))).toBe('B goes on after all 3 characters of the other');
    const long = 'a'.repeat(COMPARED_HEAD_CHARS + 10);
    expect(partingWords(comparedText(`${long}1`), comparedText(`${long}2`))).toBe(`after more than ${COMPARED_HEAD_CHARS.toLocaleString('en-US')} identical characters`);
    expect(sameText(comparedText(`${long}1`), comparedText(`${long}2`))).toBe(false);
  });

  it('diff by words around where they part, a long run both have cut to its ends', () => {
    const shared = 'word '.repeat(100);
    const changes = wordDiff(comparedText(`${shared}run pytest now`), comparedText(`${shared}run ruff now`))!;
    // They part after the 100 words and 'run ' (504 characters); the diff starts 60 characters before.
    expect(changes[0]).toEqual({ op: 'same', text: '', cut: 504 - 60 });
    expect(changes.filter((change) => change.op !== 'same').map((change) => [change.op, change.text])).toEqual([['removed', 'pytest'], ['added', 'ruff']]);
  });

  it('compare tool calls and results without their ids', () => {
    expect(blockText({ type: 'tool_use', id: 'call_A', name: 'bash', input: { command: 'ls' } })).toBe(blockText({ type: 'tool_use', id: 'call_B', name: 'bash', input: { command: 'ls' } }));
    expect(blockText({ type: 'tool_result', tool_use_id: 'A', output: 'ok', is_error: true })).toBe('[result, error] ok');
    expect(blockText({ type: 'image', id: 'x', source: 's' })).toBe(blockText({ type: 'image', id: 'z', source: 's' }));
    expect(blockText({ type: 'image', id: 'x', source: 's' })).not.toBe(blockText({ type: 'image', id: 'x', source: 't' }));
  });
});
