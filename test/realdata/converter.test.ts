// The converter on what the six sources do not hold (it needs no real data): an image in a Claude Code tool
// result becomes a media block of our format, in a frame gated by media-content/v1, its base64 text kept.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readWal } from '../../src-main/engine/reader.js';
import { sessionDir, walPath } from '../../src-main/engine/state-root.js';
import { readClaudeCode } from '../fixtures/realdata/claude-code.js';
import { writeTrajectory } from '../fixtures/realdata/trajectory.js';
import { useTempDirs } from '../helpers/temp.js';

const tempDir = useTempDirs('walscope-realdata-converter-');

const PIXEL_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==';

describe('the Claude Code converter', () => {
  it('turns an image in a tool result into a media block, gated media-content/v1', () => {
    const rows = [
      { type: 'user', uuid: 'u1', timestamp: '2026-01-02T10:00:00.000Z', message: { role: 'user', content: 'take a screenshot' } },
      { type: 'assistant', uuid: 'a1', timestamp: '2026-01-02T10:00:01.000Z', message: { id: 'msg_1', model: 'claude-x', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Screenshot', input: {} }] } },
      {
        type: 'user',
        uuid: 'r1',
        timestamp: '2026-01-02T10:00:02.000Z',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'the page' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL_PNG_BASE64 } }] }] },
      },
      { type: 'assistant', uuid: 'a2', timestamp: '2026-01-02T10:00:03.000Z', message: { id: 'msg_2', model: 'claude-x', role: 'assistant', content: [{ type: 'text', text: 'a white pixel' }] } },
    ];
    const root = tempDir();
    fs.mkdirSync(root, { recursive: true });
    writeTrajectory(root, readClaudeCode('shot', rows.map((row) => JSON.stringify(row)).join('\n')));
    const results: { features: string[]; output: unknown }[] = [];
    readWal(walPath(sessionDir(path.resolve(root), 'shot')), { on_frame: (frame) => frame.type === 'tool_result' && results.push({ features: frame.features, output: frame.payload!['output'] }) });
    expect(results).toEqual([
      {
        features: ['media-content/v1', 'tool-times/v1'],
        output: { parts: [{ type: 'text', text: 'the page' }, { type: 'media', media_type: 'image/png', data: PIXEL_PNG_BASE64 }] },
      },
    ]);
  });
});
