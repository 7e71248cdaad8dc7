#!/usr/bin/env bash
# buildah-proof.sh - build the project's Dockerfile without a Docker engine and
# without pulling from any container registry.
#
# Manual tool only: CI must NOT run this (it needs root, apt and ~2 GB of
# scratch space, and takes several minutes).
#
# What it does:
#   1. debootstrap a minimal Debian bookworm rootfs (from the apt mirror the
#      host already uses) and slim it down roughly like the official
#      `-slim` images (no apt lists/cache, docs, man pages or locales);
#   2. copy the host's Node 20 binary and npm into it, laid out like the
#      official node image (/usr/local/bin/node, /usr/local/lib/node_modules/npm),
#      and create the official image's `node` user (uid/gid 1000);
#   3. commit it into buildah's storage as docker.io/library/node:20-bookworm-slim,
#      the name the Dockerfile's FROM lines use, so `buildah bud` never pulls;
#   4. run `buildah bud` on the Dockerfile and print the timing and image size.
#
# Usage (as root, from the repository root):
#   apt-get update && apt-get install -y buildah debootstrap
#   scripts/buildah-proof.sh            # base image (if missing) + build
#   scripts/buildah-proof.sh base       # only (re)create the stand-in base
#   scripts/buildah-proof.sh build      # only build (base must exist)
#
# Environment knobs:
#   WORK_DIR   scratch directory (default /tmp/buildah-proof); it also holds
#              buildah's image storage ($WORK_DIR/storage), so nothing is left
#              in /var/lib/containers. Inspect it with:
#                buildah --storage-driver vfs --root "$WORK_DIR/storage" \
#                        --runroot "$WORK_DIR/runroot" images
#   IMAGE_TAG  tag for the built image (default records-service:test)
#   MIRROR     Debian mirror (default: first URIs:/deb line of apt's sources)
#
# Every buildah command uses the vfs storage driver (works without overlay
# support or fuse) and the same --root/--runroot; keep those consistent or
# images will not be found.
set -euo pipefail

WORK_DIR="${WORK_DIR:-/tmp/buildah-proof}"
IMAGE_TAG="${IMAGE_TAG:-records-service:test}"
BASE_IMAGE="docker.io/library/node:20-bookworm-slim"
ROOTFS="$WORK_DIR/rootfs"
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILDAH=(buildah --storage-driver vfs --root "$WORK_DIR/storage" --runroot "$WORK_DIR/runroot")

log() { printf '\n==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

need() { command -v "$1" >/dev/null 2>&1 || die "$1 not found (apt-get install -y $2)"; }

# First Debian mirror apt is configured with (deb822 or one-line format).
detect_mirror() {
  local uri
  uri="$(grep -hsE '^\s*URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null \
         | awk '{print $2}' | grep -v -- '-security' | head -n1 || true)"
  if [[ -z "$uri" ]]; then
    uri="$(grep -hsE '^\s*deb\s' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
           | awk '{print $2}' | grep -i debian | grep -v -- '-security' | head -n1 || true)"
  fi
  echo "${uri:-http://deb.debian.org/debian}"
}

make_base() {
  [[ "$(id -u)" == 0 ]] || die "run as root (debootstrap and buildah vfs storage need it)"
  need debootstrap debootstrap
  need node nodejs
  local node_bin npm_dir node_major mirror ctr mnt
  node_bin="$(readlink -f "$(command -v node)")"
  node_major="$("$node_bin" -p 'process.versions.node.split(".")[0]')"
  [[ "$node_major" == 20 ]] || die "host node is v$node_major, the stand-in must be Node 20"
  npm_dir="$(dirname "$(readlink -f "$(command -v npm)")")/.."
  npm_dir="$(cd "$npm_dir" && pwd)"
  mirror="${MIRROR:-$(detect_mirror)}"

  log "debootstrap bookworm (minbase) from $mirror into $ROOTFS"
  rm -rf "$ROOTFS"
  mkdir -p "$WORK_DIR"
  debootstrap --variant=minbase bookworm "$ROOTFS" "$mirror"

  log "slimming rootfs like the official -slim images"
  rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/* \
         "$ROOTFS"/usr/share/doc/* "$ROOTFS"/usr/share/man/* "$ROOTFS"/usr/share/info/* \
         "$ROOTFS"/var/log/*.log
  find "$ROOTFS/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name 'locale.alias' -exec rm -rf {} +
  # Same apt sources as the host (bookworm, bookworm-updates, security).
  cat > "$ROOTFS/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb ${mirror%/debian}/debian-security bookworm-security main
EOF

  log "installing host node ($("$node_bin" -v)) and npm ($(npm -v 2>/dev/null)) into /usr/local"
  install -D -m 0755 "$node_bin" "$ROOTFS/usr/local/bin/node"
  mkdir -p "$ROOTFS/usr/local/lib/node_modules"
  cp -a "$npm_dir" "$ROOTFS/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$ROOTFS/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$ROOTFS/usr/local/bin/npx"
  # The official image has a `node` user with uid/gid 1000; mirror it so a
  # Dockerfile that collides with it fails here too.
  chroot "$ROOTFS" groupadd --gid 1000 node
  chroot "$ROOTFS" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  chroot "$ROOTFS" node --version >/dev/null

  # This sandbox reaches the npm registry through a TLS-intercepting proxy
  # whose CA is only in the host's trust store. Node ignores the system store,
  # so hand it the host bundle via NODE_EXTRA_CA_CERTS. This is a property of
  # the stand-in only; the real base image and the Dockerfile do not need it.
  local ca_bundle=/etc/ssl/certs/ca-certificates.crt ca_env=()
  if [[ -s "$ca_bundle" ]]; then
    install -D -m 0644 "$ca_bundle" "$ROOTFS/usr/local/share/proof-ca/ca-certificates.crt"
    ca_env=(--env NODE_EXTRA_CA_CERTS=/usr/local/share/proof-ca/ca-certificates.crt)
  fi

  log "committing rootfs as $BASE_IMAGE"
  "${BUILDAH[@]}" rmi -f "$BASE_IMAGE" >/dev/null 2>&1 || true
  ctr="$("${BUILDAH[@]}" from scratch)"
  mnt="$("${BUILDAH[@]}" mount "$ctr")"
  cp -a "$ROOTFS"/. "$mnt"/
  "${BUILDAH[@]}" umount "$ctr" >/dev/null
  "${BUILDAH[@]}" config \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env NODE_VERSION="$("$node_bin" -p 'process.versions.node')" \
    "${ca_env[@]}" \
    --os linux --arch amd64 \
    --cmd node \
    "$ctr"
  "${BUILDAH[@]}" commit --format docker --rm "$ctr" "$BASE_IMAGE" >/dev/null
  "${BUILDAH[@]}" images "$BASE_IMAGE"
}

build_image() {
  need buildah buildah
  "${BUILDAH[@]}" inspect --type image "$BASE_IMAGE" >/dev/null 2>&1 \
    || die "$BASE_IMAGE is not in vfs storage; run '$0 base' first"
  log "buildah bud -t $IMAGE_TAG $REPO_ROOT"
  local start end
  start="$(date +%s)"
  # --format docker keeps HEALTHCHECK (the OCI format has no such field).
  # --pull=never: the base must come from local storage, never a registry.
  "${BUILDAH[@]}" bud \
    --isolation chroot \
    --network host \
    --format docker \
    --pull=never \
    --layers \
    -f "$REPO_ROOT/Dockerfile" \
    -t "$IMAGE_TAG" \
    "$REPO_ROOT"
  end="$(date +%s)"
  log "build finished in $((end - start)) s"
  "${BUILDAH[@]}" images "$IMAGE_TAG"
}

case "${1:-all}" in
  base)  make_base ;;
  build) build_image ;;
  all)
    "${BUILDAH[@]}" inspect --type image "$BASE_IMAGE" >/dev/null 2>&1 || make_base
    build_image
    ;;
  *) die "usage: $0 [all|base|build]" ;;
esac
