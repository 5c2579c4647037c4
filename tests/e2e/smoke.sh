#!/usr/bin/env bash
# Smoke check of the e2e control plane: starts it (controlplane/start.sh), installs a small CRD
# with a CEL rule, waits for Established, creates one valid and one invalid object, prints the
# server's Status message for the invalid one (and crd-cel's, when target/debug/crd-cel exists),
# and stops. Exit 0 when the server accepted the valid object and refused the invalid one.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [[ ${1:-} != --inside ]]; then
  exec bash "$HERE/controlplane/start.sh" -- timeout 300 bash "$HERE/smoke.sh" --inside
fi

# Inside: start.sh has set E2E_SERVER, E2E_TOKEN, E2E_CA.
TMP=$(mktemp -d "${TMPDIR:-/tmp}/crd-cel-smoke.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

api() { # METHOD PATH [BODY_FILE] -> body on stdout, HTTP code in $TMP/code
  local args=(-sS --max-time 20 --cacert "$E2E_CA" -H "Authorization: Bearer $E2E_TOKEN"
    -o "$TMP/body" -w '%{http_code}' -X "$1")
  if (($# > 2)); then args+=(-H 'Content-Type: application/json' --data-binary "@$3"); fi
  curl "${args[@]}" "$E2E_SERVER$2" > "$TMP/code"
  cat "$TMP/body"
}

cat > "$TMP/crd.json" <<'EOF'
{
  "apiVersion": "apiextensions.k8s.io/v1",
  "kind": "CustomResourceDefinition",
  "metadata": {"name": "widgets.e2e.crd-cel.dev"},
  "spec": {
    "group": "e2e.crd-cel.dev",
    "scope": "Namespaced",
    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
    "versions": [{
      "name": "v1", "served": true, "storage": true,
      "schema": {"openAPIV3Schema": {
        "type": "object",
        "properties": {
          "spec": {
            "type": "object",
            "required": ["replicas", "maxReplicas"],
            "x-kubernetes-validations": [
              {"rule": "self.replicas <= self.maxReplicas", "message": "replicas must not exceed maxReplicas"},
              {"rule": "self.name.startsWith('w-')", "messageExpression": "'name ' + self.name + ' must start with w-'"}
            ],
            "properties": {
              "name": {"type": "string", "maxLength": 10},
              "replicas": {"type": "integer", "minimum": 0},
              "maxReplicas": {"type": "integer"}
            }
          }
        }
      }}
    }]
  }
}
EOF
cat > "$TMP/valid.json" <<'EOF'
{"apiVersion": "e2e.crd-cel.dev/v1", "kind": "Widget", "metadata": {"name": "good", "namespace": "default"},
 "spec": {"name": "w-good", "replicas": 2, "maxReplicas": 3}}
EOF
cat > "$TMP/invalid.json" <<'EOF'
{"apiVersion": "e2e.crd-cel.dev/v1", "kind": "Widget", "metadata": {"name": "bad", "namespace": "default"},
 "spec": {"name": "bad", "replicas": 5, "maxReplicas": 3}}
EOF

api POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions "$TMP/crd.json" >/dev/null
[[ $(cat "$TMP/code") == 201 ]] || { echo "smoke: creating the CRD: HTTP $(cat "$TMP/code"): $(cat "$TMP/body")" >&2; exit 1; }
deadline=$((SECONDS + 60))
until api GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.e2e.crd-cel.dev \
    | python3 -c 'import json,sys; c=json.load(sys.stdin).get("status",{}).get("conditions",[]); sys.exit(0 if any(x["type"]=="Established" and x["status"]=="True" for x in c) else 1)' \
  && api GET /apis/e2e.crd-cel.dev/v1/namespaces/default/widgets >/dev/null && [[ $(cat "$TMP/code") == 200 ]]; do
  ((SECONDS < deadline)) || { echo "smoke: the CRD was not Established and served within 60 s" >&2; exit 1; }
  sleep 0.2
done
echo "smoke: CRD widgets.e2e.crd-cel.dev Established"

api POST /apis/e2e.crd-cel.dev/v1/namespaces/default/widgets "$TMP/valid.json" >/dev/null
code=$(cat "$TMP/code")
[[ $code == 201 ]] || { echo "smoke: the valid object was refused: HTTP $code: $(cat "$TMP/body")" >&2; exit 1; }
echo "smoke: valid object created (HTTP 201)"

api POST /apis/e2e.crd-cel.dev/v1/namespaces/default/widgets "$TMP/invalid.json" >/dev/null
code=$(cat "$TMP/code")
[[ $code == 422 ]] || { echo "smoke: the invalid object was not refused as Invalid: HTTP $code: $(cat "$TMP/body")" >&2; exit 1; }
server_text=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["message"])' "$TMP/body")
echo "smoke: invalid object refused (HTTP 422): $server_text"

CRD_CEL=${CRD_CEL:-$HERE/../../target/debug/crd-cel}
if [[ -x $CRD_CEL ]]; then
  ours=$("$CRD_CEL" validate --crd "$TMP/crd.json" --field-validation warn -o jsonl "$TMP/invalid.json" \
    | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["text"])' || true)
  if [[ $ours == "$server_text" ]]; then
    echo "smoke: crd-cel prints the same text"
  else
    echo "smoke: crd-cel prints another text: $ours"
  fi
fi
echo "smoke: OK"
