#!/usr/bin/env bash
# A stand-in for the official node:24-bookworm-slim image, built with podman where no image registry can be
# reached (test/deploy/container.test.ts builds the Dockerfile on it with --build-arg BASE=…): Debian bookworm's
# minimal system (mmdebstrap's minbase variant, with ca-certificates and without documentation) plus Node.js and
# npm from the npm registry's node-<platform>-<arch> and npm packages, laid out as the official image lays them
# out (/usr/local/bin/node, npm and npx; /usr/local/lib/node_modules/npm). The certificate authorities this
# machine adds to Debian's (/usr/local/share/ca-certificates, such as a TLS-inspecting proxy's) are added to the
# image's too, and Node.js reads that list (NODE_EXTRA_CA_CERTS): the Dockerfile's npm ci reaches the registry
# through the same network as this machine.
#
#   deploy/container/base-image.sh [NODE_MAJOR]        (24 unless given)
#
# Prints the image's tag, localhost/authentication-asmx-base:node<version>-npm<version>-<hash>, the hash of this
# script and the added authorities. An image with that tag is reused, so a second run builds nothing; a newer
# Node.js or npm release, or a change to this script or the authorities, makes a new one. Needs root (mmdebstrap
# chroots), podman, mmdebstrap, node and npm; CONTAINERS_CONF is passed through to podman.
set -euo pipefail

node_major=${1:-24}
npm_major=11   # the npm that Node.js 24 ships with
platform=$(node -p 'process.platform + "-" + process.arch')

# The newest release of a package within a major version, from the npm registry (which lists them in the order
# they were published, not by version).
newest() {
  npm view "$1@$2" version --json | node -e '
    const versions = [].concat(JSON.parse(require("fs").readFileSync(0, "utf8")));
    const parts = (version) => version.split(".").map(Number);
    versions.sort((a, b) => parts(a).reduce((order, part, i) => order || part - parts(b)[i], 0));
    console.log(versions.pop());'
}
node_version=$(newest "node-$platform" "$node_major")
npm_version=$(newest npm "$npm_major")
shopt -s nullglob
local_cas=(/usr/local/share/ca-certificates/*.crt)
inputs_hash=$(cat "${BASH_SOURCE[0]}" "${local_cas[@]}" | sha256sum | cut -c1-12)
tag="localhost/authentication-asmx-base:node${node_version}-npm${npm_version}-${inputs_hash}"

if podman image exists "$tag"; then
  echo "$tag"
  exit 0
fi

# The authorities this machine adds, into the image's list (update-ca-certificates rebuilds it there).
ca_hooks=()
if [ ${#local_cas[@]} -gt 0 ]; then
  ca_hooks=(--customize-hook="cp ${local_cas[*]@Q} \"\$1/usr/local/share/ca-certificates/\" && chroot \"\$1\" update-ca-certificates >&2")
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "building $tag" >&2
mmdebstrap --quiet --variant=minbase --include=ca-certificates \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*' \
  --customize-hook="npm install --global --prefix \"\$1/usr/local\" --no-audit --no-fund --loglevel=error node-$platform@$node_version npm@$npm_version >&2" \
  "${ca_hooks[@]}" \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
  bookworm "$work/rootfs.tar" \
  'deb http://deb.debian.org/debian bookworm main' \
  'deb http://deb.debian.org/debian bookworm-updates main' \
  'deb http://deb.debian.org/debian-security bookworm-security main' >&2
podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'CMD ["node"]' \
  "$work/rootfs.tar" "$tag" >/dev/null
echo "$tag"
