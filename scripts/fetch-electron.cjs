// Runs Electron's own installer (node_modules/electron/install.js, the `install-electron` bin) for
// scripts/start.mjs. Its progress bar goes to stderr as usual; its failure, which it reports as a stack
// trace, is reduced to the error's first line on stdout, for start to put in its own one line. CommonJS:
// the installer is CommonJS and must be required, not imported.
'use strict';
const path = require('node:path');

console.error = (first) => process.stdout.write(`${String(first).split('\n')[0]}\n`);
require(path.join(__dirname, '../node_modules/electron/install.js'));
