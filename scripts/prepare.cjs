// npm runs this after it installs (the prepare script): it builds dist/, which `npm start` and the installed
// command run. `npm ci --dry-run` runs the lifecycle scripts too but installs nothing, so there is no TypeScript
// to build with: a dry run checks the lockfile and builds nothing.
const { execFileSync } = require('node:child_process');

if (process.env.npm_config_dry_run !== 'true') {
  execFileSync(process.execPath, [process.env.npm_execpath, 'run', 'build'], { stdio: 'inherit' });
}
