// A fleet profile: how the app's "Connect to a Fleet…" reaches the bus, as the CLI's flags would (the same
// names: nats, creds, user, password, tls-ca). A JSON file the operator writes once; relative file paths in it
// are relative to the profile's folder. Who acts is the NATS user it logs in as (docs/fleet.md "Who acts").
import fs from 'node:fs';
import path from 'node:path';
import { BUS_FLAGS, busOptions, type BusOptions } from './connection.js';

export const PROFILE_BYTES_MAX = 65_536;
const FILE_KEYS = ['creds', 'tls-ca'] as const;
const KEYS: readonly string[] = Object.keys(BUS_FLAGS);

export interface FleetProfile {
  bus: BusOptions;
}

/** The profile in `file`, or one sentence saying what is wrong with it. */
export function readFleetProfile(file: string, name: string): FleetProfile | string {
  let text: string;
  try {
    if (fs.statSync(file).size > PROFILE_BYTES_MAX) return `${file}: a fleet profile is at most ${PROFILE_BYTES_MAX} bytes`;
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    return `${file}: ${(error as Error).message}`;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `${file}: not JSON`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${file}: expected an object like {"nats": "tls://nats.example:4222", "creds": "operator.creds"}`;
  const fields = value as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((key) => !KEYS.includes(key));
  if (unknown.length > 0) return `${file}: unknown field(s) ${unknown.join(', ')}; the fields are ${KEYS.join(', ')}`;
  if (Object.values(fields).some((field) => typeof field !== 'string')) return `${file}: every field is text`;
  const values = { ...(fields as Record<string, string>) };
  for (const key of FILE_KEYS) if (values[key] !== undefined) values[key] = path.resolve(path.dirname(file), values[key]);
  if (values['nats'] === undefined) return `${file}: no "nats" server URL`;
  const bus = busOptions(values, name);
  if (typeof bus === 'string') return `${file}: ${bus}`;
  return { bus };
}
