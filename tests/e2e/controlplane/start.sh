#!/usr/bin/env bash
# A throwaway Kubernetes control plane (etcd + kube-apiserver v1.37.2, or v1.34.2 with
# E2E_KUBERNETES=1.34) on 127.0.0.1.
#
#   start.sh build            build the binaries into the cache if missing, then exit
#   start.sh [-- CMD ARGS...] start, print the kubeconfig path, and either run CMD with
#                             KUBECONFIG set (tear down when it exits; its exit code is ours)
#                             or wait until stopped (Ctrl-C, SIGTERM, or stop.sh)
#
# Binaries: ${XDG_CACHE_HOME:-$HOME/.cache}/crd-cel-e2e/v1.37.2/ (built from this folder's
# go.mod on first use; about 8 minutes cold). Everything listens on 127.0.0.1 only, on free
# ports; state lives in a fresh temporary directory, removed on exit.
#
# Environment: E2E_WORKDIR (default: a new mktemp dir) where the state, certificates, logs
# and kubeconfig go; E2E_READY_TIMEOUT (default 120 s) for etcd and /readyz; E2E_KUBERNETES
# (1.37, the default, or 1.34) the apiserver's release. A 1.34 server is built from k134/go.mod
# (k8s.io/kubernetes v1.34.2 and its 31 staging modules at v0.34.2) and runs on the same etcd
# 3.7 (the etcd v3 API 1.34's client speaks is unchanged).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/crd-cel-e2e
case ${E2E_KUBERNETES:-1.37} in
  1.37) VERSION=v1.37.2 MODDIR=$HERE ;;
  1.34) VERSION=v1.34.2 MODDIR=$HERE/k134 ;;
  *) echo "controlplane: E2E_KUBERNETES=${E2E_KUBERNETES} is not a release this harness builds (1.37, 1.34)" >&2; exit 2 ;;
esac
MINOR=${VERSION#v1.}
MINOR=${MINOR%%.*}
CACHE=$ROOT_CACHE/$VERSION
ETCD_CACHE=$ROOT_CACHE/v1.37.2
READY_TIMEOUT=${E2E_READY_TIMEOUT:-120}

log() { echo "controlplane: $*" >&2; }

build() {
  if [[ -x $CACHE/kube-apiserver && -x $ETCD_CACHE/etcd ]]; then
    return 0
  fi
  command -v go >/dev/null || { log "go is not installed"; return 2; }
  mkdir -p "$CACHE" "$ETCD_CACHE"
  local pkg=k8s.io/component-base/version
  local ldflags="-s -w -X $pkg.gitVersion=$VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$MINOR -X $pkg.gitTreeState=clean"
  local t0=$SECONDS
  if [[ ! -x $ETCD_CACHE/etcd ]]; then
    log "building etcd into $ETCD_CACHE"
    (cd "$HERE" && go build -mod=readonly -ldflags "-s -w" -o "$ETCD_CACHE/etcd.tmp" ./cmd/etcd)
    mv "$ETCD_CACHE/etcd.tmp" "$ETCD_CACHE/etcd"
  fi
  if [[ ! -x $CACHE/kube-apiserver ]]; then
    log "building kube-apiserver $VERSION into $CACHE (cold: about 8-10 minutes)"
    (cd "$MODDIR" && go build -mod=readonly -ldflags "$ldflags" -o "$CACHE/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver)
    mv "$CACHE/kube-apiserver.tmp" "$CACHE/kube-apiserver"
  fi
  log "built in $((SECONDS - t0)) s"
}

if [[ ${1:-} == build ]]; then
  build
  exit 0
fi
if [[ ${1:-} == -- ]]; then shift; fi

build
START=$SECONDS

WORK=${E2E_WORKDIR:-}
OWN_WORK=0
if [[ -z $WORK ]]; then
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/crd-cel-e2e.XXXXXX")
  OWN_WORK=1
fi
mkdir -p "$WORK"
rm -rf "$WORK/etcd" "$WORK/pki" # a reused E2E_WORKDIR still starts from nothing
ETCD_PID=
APISERVER_PID=
CHILD_PID=

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  # The command first, then the apiserver (its graceful shutdown), then etcd; a process still
  # there after its grace period is killed.
  stop_pid() { # PID GRACE_TENTHS
    [[ -n $1 ]] || return 0
    kill "$1" 2>/dev/null || return 0
    for _ in $(seq "$2"); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
    kill -9 "$1" 2>/dev/null || true
  }
  stop_pid "$CHILD_PID" 50
  stop_pid "$APISERVER_PID" 150
  stop_pid "$ETCD_PID" 50
  rm -f "$WORK/pid"
  if [[ $OWN_WORK == 1 && -z ${E2E_KEEP:-} ]]; then rm -rf "$WORK"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fail() {
  log "$*"
  for f in etcd kube-apiserver; do
    if [[ -s $WORK/$f.log ]]; then log "last lines of $f.log:"; tail -n 15 "$WORK/$f.log" >&2; fi
  done
  exit 1
}

# Three free ports on 127.0.0.1 (the kernel's choice; a tiny race with other programs is accepted).
read -r ETCD_PORT ETCD_PEER_PORT API_PORT < <(python3 - <<'EOF'
import socket
socks = [socket.socket() for _ in range(3)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])
EOF
)

# Certificates: a throwaway CA, a serving certificate for 127.0.0.1/localhost, the
# service-account signing key. A static admin token in system:masters.
PKI=$WORK/pki
mkdir -p "$PKI"
(
  cd "$PKI"
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=crd-cel-e2e-ca" \
    -keyout ca.key -out ca.crt 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" -keyout server.key -out server.csr 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default\nextendedKeyUsage=serverAuth\n' > server.ext
  openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
    -extfile server.ext -out server.crt 2>/dev/null
  openssl genrsa -out sa.key 2048 2>/dev/null
  openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
)
TOKEN=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
echo "$TOKEN,admin,admin,system:masters" > "$PKI/tokens.csv"

"$ETCD_CACHE/etcd" \
  --name e2e --data-dir "$WORK/etcd" \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-cluster "e2e=http://127.0.0.1:$ETCD_PEER_PORT" \
  --listen-metrics-urls "" \
  --unsafe-no-fsync --quota-backend-bytes 2147483648 \
  --log-level error >"$WORK/etcd.log" 2>&1 &
ETCD_PID=$!
disown "$ETCD_PID"

deadline=$((SECONDS + READY_TIMEOUT))
until curl -fsS --max-time 2 "http://127.0.0.1:$ETCD_PORT/health" 2>/dev/null | grep -q '"health":"true"'; do
  kill -0 "$ETCD_PID" 2>/dev/null || fail "etcd exited"
  ((SECONDS < deadline)) || fail "etcd not healthy after ${READY_TIMEOUT}s"
  sleep 0.2
done

"$CACHE/kube-apiserver" \
  --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$API_PORT" \
  --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
  --cert-dir "$PKI" --tls-cert-file "$PKI/server.crt" --tls-private-key-file "$PKI/server.key" \
  --client-ca-file "$PKI/ca.crt" \
  --token-auth-file "$PKI/tokens.csv" --anonymous-auth=false \
  --authorization-mode AlwaysAllow \
  --service-account-issuer "https://127.0.0.1:$API_PORT" \
  --service-account-key-file "$PKI/sa.pub" --service-account-signing-key-file "$PKI/sa.key" \
  --service-cluster-ip-range 10.0.0.0/24 \
  --endpoint-reconciler-type none \
  --enable-priority-and-fairness=false \
  --profiling=false \
  --v 0 >"$WORK/kube-apiserver.log" 2>&1 &
APISERVER_PID=$!
disown "$APISERVER_PID"

deadline=$((SECONDS + READY_TIMEOUT))
until curl -fsS --max-time 2 --cacert "$PKI/ca.crt" -H "Authorization: Bearer $TOKEN" \
    "https://127.0.0.1:$API_PORT/readyz" >/dev/null 2>&1; do
  kill -0 "$APISERVER_PID" 2>/dev/null || fail "kube-apiserver exited"
  ((SECONDS < deadline)) || fail "kube-apiserver not ready after ${READY_TIMEOUT}s"
  sleep 0.3
done

KUBECONFIG_FILE=$WORK/kubeconfig
cat > "$KUBECONFIG_FILE" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: https://127.0.0.1:$API_PORT
    certificate-authority-data: $(base64 -w0 < "$PKI/ca.crt")
users:
- name: admin
  user:
    token: $TOKEN
contexts:
- name: e2e
  context: {cluster: e2e, user: admin}
current-context: e2e
EOF
echo $$ > "$WORK/pid"
log "kube-apiserver $VERSION ready in $((SECONDS - START)) s (https://127.0.0.1:$API_PORT)"
echo "$KUBECONFIG_FILE"

if (($# > 0)); then
  KUBECONFIG=$KUBECONFIG_FILE E2E_SERVER=https://127.0.0.1:$API_PORT E2E_TOKEN=$TOKEN E2E_CA=$PKI/ca.crt \
    "$@" &
  CHILD_PID=$!
  set +e
  wait "$CHILD_PID"
  rc=$?
  set -e
  CHILD_PID=
  exit "$rc"
fi

# No command: serve until stopped (stop.sh, Ctrl-C) or until a process dies.
while kill -0 "$APISERVER_PID" 2>/dev/null && kill -0 "$ETCD_PID" 2>/dev/null; do
  sleep 1 &
  wait $! || true
done
fail "a control-plane process exited"
