// The layering of docs/architecture.md, checked on every import: a layer imports only itself and the layers
// below it, and the renderer reaches the main process only through src-shared's contract. Two walls more: the
// layers above the engine reach it only through its face (engine/index.ts), and replay, the definitions, and
// views, what keeps them current, do no I/O (that is recovery's and the services').
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Each layer, and the layers of ours it may import (besides itself). Order matters: first match wins. */
const LAYERS: { name: string; dir: string; may_import: string[]; node_builtins: boolean }[] = [
  { name: 'shared', dir: 'src-shared', may_import: [], node_builtins: false },
  { name: 'engine', dir: 'src-main/engine', may_import: ['shared'], node_builtins: true },
  { name: 'replay', dir: 'src-main/replay', may_import: ['shared', 'engine'], node_builtins: true },
  { name: 'recovery', dir: 'src-main/recovery', may_import: ['shared', 'engine', 'replay'], node_builtins: true },
  { name: 'views', dir: 'src-main/views', may_import: ['shared', 'engine', 'replay'], node_builtins: true },
  { name: 'runtime', dir: 'src-main/runtime', may_import: ['shared', 'engine', 'replay', 'recovery', 'views'], node_builtins: true },
  { name: 'crashsim', dir: 'src-main/crashsim', may_import: ['shared', 'engine', 'replay', 'recovery', 'runtime'], node_builtins: true },
  { name: 'demo', dir: 'src-main/demo', may_import: ['shared', 'engine', 'replay', 'recovery', 'runtime'], node_builtins: true },
  { name: 'preload', dir: 'src-main/preload', may_import: ['shared'], node_builtins: false },
  { name: 'share', dir: 'src-main/share', may_import: ['shared', 'engine', 'replay', 'views'], node_builtins: true },
  { name: 'services', dir: 'src-main/services', may_import: ['shared', 'engine', 'replay', 'recovery', 'views', 'share', 'runtime', 'demo'], node_builtins: true },
  { name: 'server', dir: 'src-main/server', may_import: ['shared', 'engine', 'replay', 'recovery', 'runtime', 'demo', 'services'], node_builtins: true },
  { name: 'fleet', dir: 'src-main/fleet', may_import: ['shared', 'views', 'services'], node_builtins: true },
  { name: 'electron', dir: 'src-main/electron', may_import: ['shared', 'engine', 'replay', 'recovery', 'runtime', 'demo', 'services', 'server', 'fleet'], node_builtins: true },
  { name: 'cli', dir: 'src-main/cli', may_import: ['shared', 'engine', 'replay', 'recovery', 'runtime', 'crashsim', 'demo', 'services', 'server', 'fleet', 'share'], node_builtins: true },
  { name: 'renderer', dir: 'src-renderer', may_import: ['shared'], node_builtins: false },
];

function layerOf(file: string): (typeof LAYERS)[number] | undefined {
  const relative = path.relative(ROOT, file).split(path.sep).join('/');
  return LAYERS.find((layer) => relative === layer.dir || relative.startsWith(`${layer.dir}/`));
}

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(ts|tsx|mts)$/.test(file))
    .map((file) => path.join(dir, file));
}

const IMPORT_PATTERN = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;

function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT_PATTERN)].map((match) => match[1] ?? match[2] ?? match[3]!);
}

const allFiles = LAYERS.flatMap((layer) => sourceFiles(path.join(ROOT, layer.dir)));

const ENGINE_DIR = path.join(ROOT, 'src-main/engine');
const ENGINE_FACE = path.join(ENGINE_DIR, 'index.ts');
const NAMED_PATTERN = /(?:^|\n)\s*(?:import|export)\s+(type\s+)?\{([^}]*)\}\s*from\s+['"]([^'"]+)['"]/g;

/** The source file a relative specifier names (`./x.js` is `x.ts`); any other specifier as it is. */
function resolved(file: string, specifier: string): string {
  return specifier.startsWith('.') ? path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts') : specifier;
}

interface NamedImport {
  name: string;
  is_type: boolean;
  /** The file it names, resolved (a relative specifier), or the specifier itself. */
  from: string;
}

/** The names a file imports or re-exports by name (`import { a, type B } from './x.js'`). */
function namedImportsOf(file: string): NamedImport[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(NAMED_PATTERN)].flatMap((match) => {
    const from = resolved(file, match[3]!);
    return match[2]!.split(',').map((part) => part.trim()).filter((part) => part !== '').map((part) => ({
      name: part.replace(/^type\s+/, '').split(/\s+as\s+/).pop()!,
      is_type: match[1] !== undefined || part.startsWith('type '),
      from,
    }));
  });
}

const isEngineFile = (file: string) => path.dirname(file) === ENGINE_DIR;
const engineFiles = sourceFiles(ENGINE_DIR).filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));

/** What reaches the disk, a thread or the OS: file-io.ts (the seam every file operation goes through) and the
 *  Node modules below it. An engine file reaches out when it imports one of them, or an engine file that does. */
const OUTSIDE_WORLD = ['node:fs', 'node:fs/promises', 'node:os', 'node:worker_threads', 'node:child_process', 'node:net', 'fs-native-extensions'];
const FILE_IO = path.join(ENGINE_DIR, 'file-io.ts');

function engineFilesReachingOut(): Set<string> {
  const reaching = new Set([FILE_IO]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const file of engineFiles) {
      if (reaching.has(file) || file === ENGINE_FACE) continue;
      const targets = importsOf(file).map((specifier) => resolved(file, specifier));
      if (targets.some((target) => reaching.has(target) || OUTSIDE_WORLD.includes(target))) {
        reaching.add(file);
        grew = true;
      }
    }
  }
  return reaching;
}

/** Each name the face exports, and the engine file it comes from. */
function faceNames(): Map<string, string> {
  return new Map(namedImportsOf(ENGINE_FACE).map((named) => [named.name, named.from]));
}

/** Modules replay's definitions may use: none of them reaches outside the process. The price table's package is
 *  its bundled data and `calcPrice` over it; its `updatePrices`, which fetches, is never called (cost.test.ts). jsdiff
 *  (`diff`) is functions of the strings handed in (the word diffs of replay/compare-text.ts). */
const REPLAY_MODULES = ['node:assert/strict', 'node:crypto', '@pydantic/genai-prices', 'diff'];
/** Modules a share's rendering and redaction may use (src-main/share): hashing and secretlint's rules, which lint
 *  a text handed to them; the CLI reads the WAL and writes the page. */
const SHARE_MODULES = ['node:crypto', '@secretlint/core', '@secretlint/secretlint-rule-preset-recommend'];

describe('layering', () => {
  it('finds the layers', () => {
    expect(allFiles.length).toBeGreaterThan(10);
  });

  it.each(allFiles.map((file) => [path.relative(ROOT, file), file]))('%s imports only downward', (_name, file) => {
    const layer = layerOf(file)!;
    for (const specifier of importsOf(file)) {
      if (specifier.startsWith('.')) {
        const target = layerOf(path.resolve(path.dirname(file), specifier));
        expect(target, `${specifier} leaves the source folders`).toBeDefined();
        const allowed = target!.name === layer.name || layer.may_import.includes(target!.name);
        expect(allowed, `${layer.name} may not import ${target!.name} (${specifier})`).toBe(true);
      } else if (specifier.startsWith('node:')) {
        expect(layer.node_builtins, `${layer.name} may not import ${specifier}`).toBe(true);
      }
    }
  });
});

describe("the engine's face", () => {
  const face = faceNames();
  const above = allFiles.filter((file) => file.startsWith(path.join(ROOT, 'src-main') + path.sep) && !isEngineFile(file));

  it.each(above.map((file) => [path.relative(ROOT, file), file]))('%s reaches the engine only through engine/index.ts', (_name, file) => {
    for (const specifier of importsOf(file).filter((specifier) => specifier.startsWith('.'))) {
      const target = resolved(file, specifier);
      if (isEngineFile(target)) expect(target, `${specifier}: import it from the engine's face (engine/index.ts), adding the name there`).toBe(ENGINE_FACE);
    }
  });

  it('is not used by the engine itself (its files import each other)', () => {
    for (const file of engineFiles.filter((file) => file !== ENGINE_FACE)) {
      const targets = importsOf(file).map((specifier) => resolved(file, specifier));
      expect(targets, path.relative(ROOT, file)).not.toContain(ENGINE_FACE);
    }
  });

  it('exports only what a layer above uses', () => {
    const used = new Set(above.flatMap((file) => namedImportsOf(file).filter((named) => named.from === ENGINE_FACE).map((named) => named.name)));
    const unused = [...face.keys()].filter((name) => !used.has(name));
    expect(unused, 'exported by engine/index.ts and used by nothing above the engine: drop them').toEqual([]);
  });
});

describe('a share (src-main/share) is rendered and redacted without I/O', () => {
  it.each(sourceFiles(path.join(ROOT, 'src-main/share')).map((file) => [path.relative(ROOT, file), file]))('%s does no I/O', (_name, file) => {
    for (const specifier of importsOf(file).filter((specifier) => !specifier.startsWith('.'))) {
      expect(SHARE_MODULES, `share may not import ${specifier}: the CLI (or the service) reads and writes`).toContain(specifier);
    }
    const face = faceNames();
    const reaching = engineFilesReachingOut();
    for (const named of namedImportsOf(file).filter((named) => named.from === ENGINE_FACE)) expect(reaching.has(face.get(named.name)!) && !named.is_type, named.name).toBe(false);
  });
});

describe('replay (the definitions) and views (kept current) do no I/O', () => {
  const reaching = engineFilesReachingOut();
  const face = faceNames();
  // Views are handed the payload reader they read through; neither room opens, reads or writes a file itself.
  const replay = [...sourceFiles(path.join(ROOT, 'src-main/replay')), ...sourceFiles(path.join(ROOT, 'src-main/views'))];

  it('knows which engine files reach the disk', () => {
    for (const file of ['reader.ts', 'writer.ts', 'lease.ts', 'inspect.ts', 'frame-access.ts', 'session.ts']) expect(reaching, file).toContain(path.join(ENGINE_DIR, file));
    for (const file of ['cbor.ts', 'frame-codec.ts', 'limits.ts']) expect(reaching, file).not.toContain(path.join(ENGINE_DIR, file));
  });

  it.each(replay.map((file) => [path.relative(ROOT, file), file]))('%s does no I/O', (_name, file) => {
    for (const specifier of importsOf(file).filter((specifier) => !specifier.startsWith('.'))) {
      expect(REPLAY_MODULES, `replay may not import ${specifier}: what reads or writes belongs in recovery/`).toContain(specifier);
    }
    for (const named of namedImportsOf(file).filter((named) => named.from === ENGINE_FACE)) {
      const origin = face.get(named.name);
      expect(origin, `${named.name} is not in engine/index.ts`).toBeDefined();
      // A type does nothing, but FileIO is the seam every file operation goes through.
      const reaches = reaching.has(origin!) && (!named.is_type || origin === FILE_IO);
      expect(reaches, `${named.name} (engine/${path.basename(origin!)}) reaches the disk: what reads or writes belongs in recovery/`).toBe(false);
    }
  });
});

describe("a session model's file operations go through its FileIO seam", () => {
  // The model's reads, probes and stats are what the live-probe tests count (OpenOptions.io); a call to node:fs
  // beside the seam is one they cannot see.
  it('services/session-model.ts imports no file system module', () => {
    const fileSystem = (file: string) => importsOf(path.join(ROOT, file)).filter((specifier) => /^(node:)?fs(\/|$)/.test(specifier));
    expect(fileSystem('src-main/engine/file-io.ts')).toEqual(['node:fs']);
    expect(fileSystem('src-main/services/session-model.ts')).toEqual([]);
  });
});

describe('replay and views keep no state at module level', () => {
  // What a function of a fold derives lives in the store its caller hands it (replay/sums.ts), and dies with
  // it: a module-level table, list, counter or mutable static would outlive every session and hide the state
  // from the plan. Constants (frozen specs, tables' names, limits) are fine.
  const MODULE_STATE = [
    /^(export )?(let|var)\s/,
    /^(export )?const [A-Za-z_$][\w$]* = new (Weak)?(Map|Set|Ref)\b/,
    /^(export )?const [A-Za-z_$][\w$]* = new (EpisodeSum|FullSums|IncrementalSums|FinishedEpisodesSum)\b/,
    /^(export )?const [a-z_$][\w$]* = \{ [a-z_]+: 0/,
    /^\s+static (?!readonly )[A-Za-z_$][\w$]* = /,
  ];
  /** A memo of the price table (a constant of the package), bounded and cleared: no fold's state. */
  const ALLOWED = new Map([['src-main/replay/cost.ts', 'const price_memo = new Map<string, Pricer>();']]);
  const files = [...sourceFiles(path.join(ROOT, 'src-main/replay')), ...sourceFiles(path.join(ROOT, 'src-main/views'))];

  it.each(files.map((file) => [path.relative(ROOT, file), file]))('%s', (name, file) => {
    const found = fs.readFileSync(file, 'utf8').split('\n').filter((line) => MODULE_STATE.some((pattern) => pattern.test(line)) && ALLOWED.get(name) !== line);
    expect(found, 'state at module level: keep it in a Sums store (replay/sums.ts) or an object the session owns').toEqual([]);
  });

  it('finds state where there is some', () => {
    const lines = ['const kept = new WeakMap<object, number>();', 'let count = 0;', 'export const made = { count: 0 };', '  static parts_indexed = 0;'];
    for (const line of lines) expect(MODULE_STATE.some((pattern) => pattern.test(line)), line).toBe(true);
    for (const line of ['const KEPT = new Table<object, number>(\'kept\');', '  static readonly LIMIT = 4;', '  private readonly kept = new WeakMap<object, number>();']) expect(MODULE_STATE.some((pattern) => pattern.test(line)), line).toBe(false);
  });
});
