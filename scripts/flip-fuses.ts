// `npm run package:fuses -- PATH`: flips the fuses of a packaged walscope executable (the Electron binary
// inside the package, beside its resources/app.asar) as src-main/electron/fuses.ts sets them, then checks them.
import { flipAppFuses } from '../src-main/electron/fuses.js';

const binary = process.argv[2];
if (binary === undefined) {
  process.stderr.write('usage: npm run package:fuses -- PATH_TO_PACKAGED_ELECTRON_EXECUTABLE\n');
  process.exit(2);
}
await flipAppFuses(binary);
process.stdout.write(`fuses set and verified in ${binary}\n`);
