// The end-to-end tests drive Debian's Chromium (/usr/bin/chromium). Install it when it is missing and we
// may (root, as CI runs); otherwise say exactly what to run. Idempotent and quick when already present.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CHROMIUM_PATH = '/usr/bin/chromium';
const INSTALL = ['apt-get', ['install', '-y', '--no-install-recommends', 'chromium', 'fonts-dejavu-core']];

if (!existsSync(CHROMIUM_PATH)) {
  if (process.getuid?.() !== 0) {
    console.error(`walscope tests need Chromium at ${CHROMIUM_PATH}: run  sudo apt-get update && sudo ${INSTALL[0]} ${INSTALL[1].join(' ')}`);
    process.exit(1);
  }
  console.log(`Installing Debian's Chromium for the end-to-end tests (${CHROMIUM_PATH} is missing)…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
  execFileSync(INSTALL[0], INSTALL[1], { stdio: 'inherit', env });
}

// The fleet tests start Debian's nats-server (JetStream) on a free port; install it the same way.
const NATS_SERVER_PATH = '/usr/sbin/nats-server';
const NATS_INSTALL = ['apt-get', ['install', '-y', '--no-install-recommends', 'nats-server']];

if (!existsSync(NATS_SERVER_PATH)) {
  if (process.getuid?.() !== 0) {
    console.error(`walscope tests need nats-server at ${NATS_SERVER_PATH}: run  sudo apt-get update && sudo ${NATS_INSTALL[0]} ${NATS_INSTALL[1].join(' ')}`);
    process.exit(1);
  }
  console.log(`Installing Debian's nats-server for the fleet tests (${NATS_SERVER_PATH} is missing)…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
  execFileSync(NATS_INSTALL[0], NATS_INSTALL[1], { stdio: 'inherit', env });
}
