// A crash case names everything a simulation depends on, so any violation replays exactly from its text:
// the scripted session, the seed (torn writes, garbage, random images), the planted bugs (tests only), and per
// process the number of disk mutations it makes before it dies and how the disk is left.
//
//   sim-basic/17/none/23@random,5@synced   — process 1 dies before its 24th mutation (random image),
//                                            the first recovery dies before its 6th (synced image),
//                                            the second recovery runs to the end.
import { PLANT_NAMES, type PlantName } from '../runtime/plants.js';
import { IMAGE_KINDS, type ImageKind } from './disk.js';

export interface CrashPoint {
  after_mutations: number;
  image: ImageKind;
}

export interface CrashCase {
  session: string;
  seed: number;
  plants: PlantName[];
  crashes: CrashPoint[];
}

/** Crashes per case at most: the first process and recoveries that crash again. */
export const CRASHES_PER_CASE_MAX = 4;

export class CaseFormatError extends Error {
  override name = 'CaseFormatError';
}

export function formatCase(value: CrashCase): string {
  const plants = value.plants.length === 0 ? 'none' : value.plants.join('+');
  const crashes = value.crashes.map((point) => `${point.after_mutations}@${point.image}`).join(',') || 'none';
  return `${value.session}/${value.seed}/${plants}/${crashes}`;
}

export function parseCase(text: string): CrashCase {
  const parts = text.trim().split('/');
  if (parts.length !== 4) throw new CaseFormatError(`"${text}" is not session/seed/plants/crashes`);
  const [session, seedText, plantsText, crashesText] = parts as [string, string, string, string];
  const seed = Number(seedText);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new CaseFormatError(`seed "${seedText}" is not a non-negative integer`);
  const plants = plantsText === 'none' ? [] : plantsText.split('+');
  for (const plant of plants) {
    if (!(PLANT_NAMES as readonly string[]).includes(plant)) throw new CaseFormatError(`unknown plant "${plant}" (known: ${PLANT_NAMES.join(', ')})`);
  }
  const crashes = crashesText === 'none' ? [] : crashesText.split(',').map(parsePoint);
  if (crashes.length > CRASHES_PER_CASE_MAX) throw new CaseFormatError(`at most ${CRASHES_PER_CASE_MAX} crashes a case`);
  return { session, seed, plants: plants as PlantName[], crashes };
}

function parsePoint(text: string): CrashPoint {
  const [count, image] = text.split('@');
  const after_mutations = Number(count);
  if (!Number.isSafeInteger(after_mutations) || after_mutations < 0) throw new CaseFormatError(`crash point "${text}" needs a mutation count`);
  if (!(IMAGE_KINDS as readonly string[]).includes(image ?? '')) throw new CaseFormatError(`crash point "${text}" needs an image: ${IMAGE_KINDS.join(', ')}`);
  return { after_mutations, image: image as ImageKind };
}
