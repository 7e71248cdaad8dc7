#!/usr/bin/env bash
# A single-node Ceph (mon + memstore OSD + radosgw) serving S3 on 127.0.0.1:$S3_CEPH_PORT, for the
# files integration suite: start/stop with all state in one
# directory, a bounded wait, and the S3 settings written to "$DIR/env" for the caller to source.
#
#   scripts/s3-ceph.sh start DIR   # ~12 s; needs: apt-get install radosgw ceph-mon ceph-osd
#   scripts/s3-ceph.sh stop DIR    # kills the three daemons and removes DIR
set -euo pipefail
command=${1:-}
C=${2:-}
PORT=${S3_CEPH_PORT:-7480}
if [[ -z "$command" || -z "$C" ]]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi

stop() {
  local pid
  for file in "$C"/run/*.pid; do
    [[ -f "$file" ]] || continue
    pid=$(cat "$file")
    kill "$pid" 2>/dev/null || true
  done
  for file in "$C"/run/*.pid; do
    [[ -f "$file" ]] || continue
    pid=$(cat "$file")
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$C"
}

if [[ "$command" == stop ]]; then
  stop
  exit 0
fi
[[ "$command" == start ]] || { echo "unknown command $command" >&2; exit 2; }
for tool in ceph-mon ceph-osd radosgw radosgw-admin ceph-authtool monmaptool; do
  command -v "$tool" >/dev/null || { echo "$tool is missing: apt-get install -y --no-install-recommends radosgw ceph-mon ceph-osd" >&2; exit 1; }
done

rm -rf "$C"/{mon,osd,run,log,rgw,keyring,monmap}
mkdir -p "$C"/{run,log,mon/ceph-a,osd/ceph-0,rgw}
FSID=$(cat /proc/sys/kernel/random/uuid)
cat > "$C/ceph.conf" <<CONF
[global]
fsid = $FSID
mon_host = [v2:127.0.0.1:3300,v1:127.0.0.1:6789]
public_network = 127.0.0.0/8
auth_cluster_required = cephx
auth_service_required = cephx
auth_client_required = cephx
osd_pool_default_size = 1
osd_pool_default_min_size = 1
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
osd_pool_default_pg_autoscale_mode = off
mon_max_pg_per_osd = 1000
osd_crush_chooseleaf_type = 0
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
mon_data_avail_warn = 1
mon_data_avail_crit = 0
ms_bind_ipv6 = false
run_dir = $C/run
admin_socket = $C/run/\$name.asok
pid_file = $C/run/\$name.pid
log_file = $C/log/\$name.log
keyring = $C/keyring
[mon.a]
mon_data = $C/mon/ceph-a
[osd]
osd_objectstore = memstore
memstore_device_bytes = 2147483648
osd_data = $C/osd/ceph-\$id
[client.rgw.a]
rgw_frontends = beast endpoint=127.0.0.1:$PORT
rgw_data = $C/rgw
CONF
K="$C/keyring"
ceph-authtool --create-keyring "$K" --gen-key -n mon. --cap mon 'allow *' >/dev/null
ceph-authtool "$K" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' --cap mds 'allow *' >/dev/null
ceph-authtool "$K" --gen-key -n osd.0 --cap mon 'allow profile osd' --cap osd 'allow *' --cap mgr 'allow profile osd' >/dev/null
ceph-authtool "$K" --gen-key -n client.rgw.a --cap mon 'allow rw' --cap osd 'allow rwx' --cap mgr 'allow rw' >/dev/null
monmaptool --create --addv a '[v2:127.0.0.1:3300,v1:127.0.0.1:6789]' --fsid "$FSID" "$C/monmap" >/dev/null
ceph-mon -c "$C/ceph.conf" --mkfs -i a --monmap "$C/monmap" --keyring "$K"
ceph-mon -c "$C/ceph.conf" -i a
U=$(cat /proc/sys/kernel/random/uuid)
timeout 60 ceph -c "$C/ceph.conf" osd new "$U" 0 >/dev/null
ceph-osd -c "$C/ceph.conf" -i 0 --mkfs --osd-uuid "$U" 2>/dev/null
ceph-osd -c "$C/ceph.conf" -i 0 2>/dev/null
radosgw -c "$C/ceph.conf" -n client.rgw.a
for i in $(seq 1 240); do
  curl -sf -o /dev/null "http://127.0.0.1:$PORT" && break
  if [[ $i == 240 ]]; then echo "radosgw did not answer on 127.0.0.1:$PORT within 120 s; logs in $C/log" >&2; exit 1; fi
  sleep 0.5
done
radosgw-admin -c "$C/ceph.conf" user create --uid=test --display-name=test --access-key=TESTKEY --secret-key=testsecret >/dev/null
cat > "$C/env" <<ENV
export S3_ENDPOINT=http://127.0.0.1:$PORT
export S3_REGION=us-east-1
export S3_ACCESS_KEY_ID=TESTKEY
export S3_SECRET_ACCESS_KEY=testsecret
export S3_FORCE_PATH_STYLE=true
export S3_BUCKET=records-files-test
ENV
echo "S3 (radosgw) on http://127.0.0.1:$PORT, key TESTKEY; settings in $C/env; stop: $0 stop $C"
