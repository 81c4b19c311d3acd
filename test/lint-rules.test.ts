// The project's own lint rule, run by ESLint as `npm run lint` runs it: a list spread into a call (or handed to
// fn.apply) is refused in every runtime's source, a function's rest parameter passed on is not.
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const REPO = path.resolve(import.meta.dirname, '..');
const eslint = new ESLint({ cwd: REPO });

async function spreadProblems(code: string, file: string): Promise<number[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(REPO, file) });
  return result!.messages.filter((message) => message.ruleId === 'walscope/no-spread-arguments').map((message) => message.line);
}

describe('walscope/no-spread-arguments', () => {
  it('refuses every spread of a list into a call, in main, shared and renderer code', async () => {
    const code = [
      'export function f(times: number[], rows: string[], bytes: number[]) {',
      '  const out: string[] = [];',
      '  out.push(...rows);',
      '  new Set(...[rows]);',
      '  return [Math.max(...times), Math.min(...times), String.fromCharCode(...bytes), Math.max.apply(null, times), out];',
      '}',
      '',
    ].join('\n');
    for (const file of ['src-main/replay/x.ts', 'src-shared/x.ts', 'src-renderer/components/x.tsx']) {
      expect(await spreadProblems(code, file)).toEqual([3, 4, 5, 5, 5, 5]);
    }
  });

  it('allows a rest parameter passed on, a spread into an array, and apply with a literal list', async () => {
    const code = [
      'export const wrap = (call: (...args: number[]) => number) => (...args: number[]) => call(...args);',
      'export const copy = (rows: string[]) => [...rows];',
      'export const one = (f: (a: number) => number) => f.apply(null, [1]);',
      '',
    ].join('\n');
    expect(await spreadProblems(code, 'src-main/replay/x.ts')).toEqual([]);
  });
});
