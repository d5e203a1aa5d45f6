// npm runs this before it installs anything (the preinstall script), on whatever Node.js the user has, so it
// is plain CommonJS with nothing newer than ES5 in it. better-sqlite3 13 needs Node-API 10 (Node.js 22.14 or
// newer) and crashes the process with a segmentation fault below that: refuse the install with one line instead.
var parts = process.versions.node.split('.').map(Number);
var major = parts[0];
var minor = parts[1];
if (major < 22 || (major === 22 && minor < 14)) {
  process.stderr.write(
    'authentication-asmx needs Node.js 22.14 or newer (24 LTS recommended); this is Node.js ' +
      process.versions.node + '.\n',
  );
  process.exit(1);
}
