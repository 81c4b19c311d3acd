// The blocks of wal-format §6 as a reader is shown them (src-shared/blocks.ts), each type as what it is, and
// a call's gist and first output line; hostile blocks (huge, deep, an SVG or not-an-image under an image type,
// a signature) are shown bounded, as their type, and never as an image or the signature's text.
import { describe, expect, it } from 'vitest';
import { argsGist, BLOCKS_DEPTH_MAX, BLOCKS_SHOWN_MAX, GIST_CHARS_MAX, IMAGES_SHOWN_MAX, messageWords, outputLine, shownBlocks, shownOutput, spokenText, thinkingWords, type BlockLimits } from '../../src-shared/blocks.js';

const LIMITS: BlockLimits = { text_chars_max: 100, message_chars_max: 1_000, image_chars_max: 10_000 };
/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const SIGNATURE = 'EqQBCkYIBxgCKkD3signature'.repeat(40);

describe('each block type of §6 shown as what it is', () => {
  it('text, text_with_state, reasoning, redacted reasoning, media, tool_use, tool_result, unknown', () => {
    const blocks = shownBlocks(
      [
        { type: 'text', text: 'I will run the tests.' },
        { type: 'text_with_state', text: 'carried on', state: { format: 'openai-responses/v1', data: 'opaque' } },
        { type: 'reasoning', text: 'The user wants the tests run.', signature: SIGNATURE },
        { type: 'redacted_reasoning', data: 'x'.repeat(300), provider_format: 'anthropic' },
        { type: 'media', media_type: 'image/png', data: PNG },
        { type: 'tool_use', id: 'call-1', name: 'shell', input: { command: 'npm test' } },
        { type: 'tool_result', tool_use_id: 'call-1', is_error: true, output: { parts: [{ type: 'text', text: 'FAIL' }, { type: 'media', media_type: 'application/pdf', data: 'AAAA' }] } },
        { type: 'citation', url: 'https://example.com', span: [1, 2] },
      ],
      LIMITS,
    );
    expect(blocks).toEqual([
      { type: 'text', text: 'I will run the tests.', more_chars: 0 },
      { type: 'text_with_state', text: 'carried on', more_chars: 0, state_format: 'openai-responses/v1' },
      { type: 'reasoning', text: 'The user wants the tests run.', chars: 29, more_chars: 0, signed: true },
      { type: 'redacted_reasoning', data_chars: 300, provider_format: 'anthropic' },
      { type: 'media', media_type: 'image/png', size_bytes: 70, ref: null, image: PNG },
      { type: 'tool_use', id: 'call-1', name: 'shell', input: { command: 'npm test' } },
      {
        type: 'tool_result',
        tool_use_id: 'call-1',
        is_error: true,
        output: [
          { type: 'text', text: 'FAIL', more_chars: 0 },
          { type: 'media', media_type: 'application/pdf', size_bytes: 3, ref: null, image: null },
        ],
      },
      { type: 'unknown', block_type: 'citation', fields: [['url', 'https://example.com'], ['span', [1, 2]]] },
    ]);
    expect(JSON.stringify(blocks)).not.toContain('EqQBCkYI');
    expect(messageWords(blocks)).toBe(
      ['I will run the tests.', 'carried on', '[thinking · 29 chars]', '[redacted thinking (anthropic)]', '[image/png · 70 B]', '[→ shell call-1]', '[← call-1 error]', '[citation]'].join('\n'),
    );
    expect(spokenText(blocks)).toBe('I will run the tests.\ncarried on');
  });

  it('a message of one text, an output of text, and nothing', () => {
    expect(shownBlocks('hello', LIMITS)).toEqual([{ type: 'text', text: 'hello', more_chars: 0 }]);
    expect(shownOutput({ parts: [{ type: 'text', text: 'a' }] }, LIMITS)).toEqual([{ type: 'text', text: 'a', more_chars: 0 }]);
    expect(shownBlocks(null, LIMITS)).toEqual([]);
    expect(shownOutput({ exit_code: 0 }, LIMITS)).toEqual([{ type: 'unknown', block_type: null, fields: [['exit_code', 0]] }]);
  });

  it('says thinking in few words: "thinking · 1.2k chars"', () => {
    expect(thinkingWords(1_234)).toBe('thinking · 1.2k chars');
    expect(thinkingWords(56_000)).toBe('thinking · 56k chars');
    expect(thinkingWords(12)).toBe('thinking · 12 chars');
  });
});

describe('hostile blocks are shown bounded and as their type', () => {
  it('cuts a huge text or thinking, counting what it left out, and never ends in half a surrogate pair', () => {
    const [text, thinking] = shownBlocks([{ type: 'text', text: 'a'.repeat(1_000_000) }, { type: 'reasoning', text: `${'b'.repeat(99)}😀tail` }], LIMITS);
    expect(text).toEqual({ type: 'text', text: 'a'.repeat(100), more_chars: 999_900 });
    expect(thinking).toEqual({ type: 'reasoning', text: 'b'.repeat(99), chars: 105, more_chars: 6, signed: false });
  });

  it('shows at most BLOCKS_SHOWN_MAX blocks and counts the rest', () => {
    const blocks = shownBlocks(Array.from({ length: BLOCKS_SHOWN_MAX + 7 }, () => ({ type: 'text', text: 'x' })), LIMITS);
    expect(blocks).toHaveLength(BLOCKS_SHOWN_MAX + 1);
    expect(blocks.at(-1)).toEqual({ type: 'left_out', blocks: 7 });
  });

  it("shares a message's characters among its texts in order, and carries at most IMAGES_SHOWN_MAX images", () => {
    const blocks = shownBlocks(Array.from({ length: 30 }, (_, index) => ({ type: 'text', text: `${index}`.padEnd(100, '.') })), LIMITS);
    expect(blocks.map((block) => (block.type === 'text' ? block.text.length : -1))).toEqual([...Array.from({ length: 10 }, () => 100), ...Array.from({ length: 20 }, () => 0)]);
    expect(blocks.at(-1)).toEqual({ type: 'text', text: '', more_chars: 100 });
    const images = shownOutput({ parts: Array.from({ length: IMAGES_SHOWN_MAX + 2 }, () => ({ type: 'media', media_type: 'image/png', data: PNG })) }, LIMITS);
    expect(images.map((block) => block.type === 'media' && block.image !== null)).toEqual([...Array.from({ length: IMAGES_SHOWN_MAX }, () => true), false, false]);
  });

  it('stops following tool results nested in tool results past BLOCKS_DEPTH_MAX', () => {
    let output: unknown = 'deepest';
    for (let level = 0; level < 10_000; level++) output = { parts: [{ type: 'tool_result', tool_use_id: `t${level}`, output }] };
    const blocks = shownOutput(output, LIMITS);
    let depth = 0;
    let block = blocks[0]!;
    while (block.type === 'tool_result') {
      block = block.output[0]!;
      depth += 1;
    }
    expect(depth).toBe(BLOCKS_DEPTH_MAX);
    expect(block.type).toBe('unknown');
  });

  it('shows only raster images whose data is base64 of their type: never SVG, never data of another kind', () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>').toString('base64');
    const media = (media_type: string, data: string) => shownBlocks([{ type: 'media', media_type, data }], LIMITS)[0];
    expect(media('image/svg+xml', svg)).toMatchObject({ media_type: 'image/svg+xml', image: null });
    // SVG under a raster type, a byte string's hex, text that is not base64, a type's name in another case.
    expect(media('image/png', svg)).toMatchObject({ image: null });
    expect(media('image/png', Buffer.from(PNG, 'base64').toString('hex'))).toMatchObject({ image: null });
    expect(media('image/png', `${PNG.slice(0, 20)}"><script>`)).toMatchObject({ image: null });
    expect(media('image/gif', PNG)).toMatchObject({ image: null });
    expect(media('image/png', PNG)).toMatchObject({ image: PNG });
    // Data larger than the view carries: its type and size, no image.
    expect(shownBlocks([{ type: 'media', media_type: 'image/png', data: PNG }], { ...LIMITS, image_chars_max: 10 })[0]).toEqual({ type: 'media', media_type: 'image/png', size_bytes: 70, ref: null, image: null });
    expect(shownBlocks([{ type: 'media', media_type: 'image/png', ref: 'blob://1' }], LIMITS)[0]).toEqual({ type: 'media', media_type: 'image/png', size_bytes: null, ref: 'blob://1', image: null });
  });

  it('never carries a signature, only that there is one; blocks that are not maps are shown as values', () => {
    const blocks = shownBlocks([{ type: 'reasoning', signature: SIGNATURE }, 42, ['a'], null], LIMITS);
    expect(blocks[0]).toEqual({ type: 'reasoning', text: '', chars: 0, more_chars: 0, signed: true });
    expect(blocks.slice(1)).toEqual([42, ['a'], null].map((value) => ({ type: 'unknown', block_type: null, fields: [['value', value]] })));
    expect(JSON.stringify(blocks)).not.toContain('signature');
  });

  it('a block of a known type with fields of the wrong kind is shown as its fields', () => {
    expect(shownBlocks([{ type: 'text', text: { not: 'text' } }], LIMITS)).toEqual([{ type: 'unknown', block_type: 'text', fields: [['text', { not: 'text' }]] }]);
  });
});

describe("a call's gist and first output line", () => {
  it("is a shell tool's command, a file tool's path, a verb and its path, else the first short text argument", () => {
    expect(argsGist({ command: 'npm test -- --run' })).toBe('npm test -- --run');
    expect(argsGist({ cmd: ['git', 'diff', '--stat'] })).toBe('git diff --stat');
    expect(argsGist({ path: 'src/export/csv.ts' })).toBe('src/export/csv.ts');
    expect(argsGist({ content: 'x'.repeat(500), file_path: 'a.txt' })).toBe('a.txt');
    expect(argsGist({ command: 'str_replace', path: 'src/a.ts', old_str: 'a', new_str: 'b' })).toBe('str_replace src/a.ts');
    expect(argsGist({ user_id: 'mia_li_3668', limit: 3 })).toBe('mia_li_3668');
    expect(argsGist('find . -name "*.py"')).toBe('find . -name "*.py"');
  });

  it('is null when there is nothing to show, and one line of at most GIST_CHARS_MAX characters', () => {
    expect(argsGist(null)).toBeNull();
    expect(argsGist({ n: 3, flags: [1, 2] })).toBeNull();
    expect(argsGist({ body: 'y'.repeat(500) })).toBeNull();
    expect(argsGist({ command: "cat <<'EOF' > a.py\nprint(1)\nEOF" })).toBe("cat <<'EOF' > a.py print(1) EOF");
    const long = argsGist({ command: `echo ${'z'.repeat(10_000)}` })!;
    expect(long).toHaveLength(GIST_CHARS_MAX);
    expect(long.endsWith('…')).toBe(true);
  });

  it("is an output's first line with text, its escapes and control characters dropped", () => {
    expect(outputLine('\n\n  \u001b[31mFAIL\u001b[0m test/a.test.ts\u0007\nmore')).toBe('FAIL test/a.test.ts');
    expect(outputLine('\u001b]0;title\u0007done')).toBe('done');
    expect(outputLine({ parts: [{ type: 'media', media_type: 'image/png', data: PNG }, { type: 'text', text: '\nsaved screenshot' }] })).toBe('saved screenshot');
    expect(outputLine({ parts: [{ type: 'media', media_type: 'image/png', data: PNG }] })).toBeNull();
    expect(outputLine(null)).toBeNull();
    expect(outputLine('   \n\t')).toBeNull();
    expect(outputLine(`${'w'.repeat(100_000)}\nsecond`)).toHaveLength(GIST_CHARS_MAX);
  });
});
