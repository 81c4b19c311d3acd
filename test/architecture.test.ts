// The layering of docs/architecture.md, checked on every import: a layer imports only itself and the layers
// below it, and the renderer reaches the main process only through src-shared's contract.
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
  { name: 'runtime', dir: 'src-main/runtime', may_import: ['shared', 'engine', 'replay', 'recovery'], node_builtins: true },
  { name: 'crashsim', dir: 'src-main/crashsim', may_import: ['shared', 'engine', 'replay', 'recovery', 'runtime'], node_builtins: true },
  { name: 'demo', dir: 'src-main/demo', may_import: ['shared', 'engine', 'replay', 'recovery', 'runtime'], node_builtins: true },
  { name: 'preload', dir: 'src-main/preload', may_import: ['shared'], node_builtins: false },
  { name: 'services', dir: 'src-main/services', may_import: ['shared', 'engine', 'replay', 'recovery', 'runtime', 'demo'], node_builtins: true },
  { name: 'server', dir: 'src-main/server', may_import: ['shared', 'engine', 'replay', 'recovery', 'runtime', 'demo', 'services'], node_builtins: true },
  { name: 'fleet', dir: 'src-main/fleet', may_import: ['shared', 'services'], node_builtins: true },
  { name: 'electron', dir: 'src-main/electron', may_import: ['shared', 'engine', 'replay', 'recovery', 'runtime', 'demo', 'services', 'server', 'fleet'], node_builtins: true },
  { name: 'cli', dir: 'src-main/cli', may_import: ['shared', 'engine', 'replay', 'recovery', 'runtime', 'crashsim', 'demo', 'services', 'server', 'fleet'], node_builtins: true },
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
