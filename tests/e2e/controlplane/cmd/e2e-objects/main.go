// Command e2e-objects sends generated objects (tests/difffuzz/objects.py --keep DIR
// --no-compare: corpus vectors in DIR/vectors/generated, each CRD in DIR/crd/) to a real
// kube-apiserver as dry-run requests, many at a time, and compares the server's verdict and
// Status message with crd-cel's, which validates every object of a CRD in one call.
//
// Per CRD (the vectors are grouped by their crdPaths[0]): the CRD is installed with only the
// vectors' version (served, storage) and without status, as cmd/e2e-vectors installs it, and
// the command waits for Established and for the resource to be served. Then:
//
//   - CREATE: a POST of the object as written to ?dryRun=All (its metadata.namespace, else
//     "default"; no namespace for a cluster-scoped kind), CONCURRENCY requests at a time;
//   - UPDATE: the updates are grouped by their old object (objects.py --olds K makes them share
//     a few). Each old object is created once for real (that create is compared too, as an
//     OLD run), then every update of it is a PUT to ?dryRun=All of the object's name, with the
//     stored resourceVersion when the body has none, CONCURRENCY at a time. The updates of an
//     old object the server refused are not sent (counted as skipped).
//
// No fieldValidation is sent (the server's default, Warn), as cmd/e2e-vectors sends none; crd-cel
// is run with --field-validation warn. crd-cel: `crd-cel validate --crd CRD_FILE
// --field-validation warn --kubernetes-version 1.37 -o jsonl FILE` once per CRD over a YAML
// stream of all its creates (one JSON document per line), once over its old objects, and once
// per old object with `--old OLD` over the stream of its updates. When a batch does not answer
// a line per document, its documents are run one by one.
//
// Compared: the verdict and the whole Status message, the server's canonicalised as
// cmd/e2e-vectors does (an Invalid Status's causes stable-sorted by field and the message
// rebuilt from them, when they rebuild it; selfType<digits> as selfType<N>), crd-cel's jsonl
// text being in that order already.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"
)

type vector struct {
	Name        string          `json:"name"`
	CRDPaths    []string        `json:"crdPaths"`
	Kind        string          `json:"kind"`
	Version     string          `json:"version"`
	Operation   string          `json:"operation"`
	Subresource *string         `json:"subresource"`
	Object      json.RawMessage `json:"object"`
	OldObject   json.RawMessage `json:"oldObject"`
	// ServerText is the server's answer a minimized case recorded (objects.sh --cases):
	// `valid` or its canonical text.
	ServerText *string `json:"serverText"`
}

// answer is one side's answer; Err is set when that side could not answer.
type answer struct {
	Valid bool   `json:"valid"`
	Text  string `json:"text"`
	Err   string `json:"error,omitempty"`
	// The causes in the canonical order ("field: message", without repeats): the server's when
	// they rebuild its message (Prefix: the message before them), crd-cel's from its errors.
	Prefix string   `json:"-"`
	Causes []string `json:"causes,omitempty"`
}

func (a answer) String() string {
	switch {
	case a.Err != "":
		return "ERROR " + a.Err
	case a.Valid:
		return "valid"
	default:
		return "invalid: " + a.Text
	}
}

// item is one request: a generated object (CREATE, UPDATE) or an old object's create (OLD).
type item struct {
	CRD       string          `json:"crd"`
	File      string          `json:"file"` // the vector file; for OLD, the first update's
	Op        string          `json:"op"`
	Name      string          `json:"name"`
	Server    answer          `json:"server"`
	RawServer string          `json:"rawServer,omitempty"` // the message as sent, when not canonical
	CRDCel    answer          `json:"crdCel"`
	Skipped   string          `json:"skipped,omitempty"` // why it was not sent
	Object    json.RawMessage `json:"object"`
	OldKey    string          `json:"oldKey,omitempty"`
	Expected  *string         `json:"expected,omitempty"` // the recorded server answer
}

type oldGroup struct {
	key     string
	object  json.RawMessage
	create  *item
	updates []*item
}

type crdGroup struct {
	path     string // relative to the work folder
	kind     string
	version  string
	name     string
	crd      map[string]any // as installed
	creates  []*item
	olds     []*oldGroup
	oldIndex map[string]*oldGroup
	err      string // the CRD could not be read or installed
	vectors  int
}

type options struct {
	dir, set, crdCel, kubeconfig, jsonOut, k8sVersion, known string
	match                                                    *regexp.Regexp
	concurrency, limit                                       int
}

func main() {
	var o options
	var match string
	flag.StringVar(&o.dir, "dir", "", "objects.py's work folder (crd/, vectors/SET/)")
	flag.StringVar(&o.set, "set", "generated", "the vector set under DIR/vectors")
	flag.StringVar(&o.crdCel, "crd-cel", "", "crd-cel binary")
	flag.StringVar(&o.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the server")
	flag.StringVar(&o.jsonOut, "json", "", "also write every request and both answers as JSON to this file")
	flag.StringVar(&o.k8sVersion, "kubernetes-version", "1.37", "crd-cel's --kubernetes-version")
	flag.StringVar(&o.known, "known", "", "known divergences (see objects-known.txt): exit 1 on any divergence none of them explains")
	flag.StringVar(&match, "match", "", "only the CRDs whose name or crd path matches this regular expression")
	flag.IntVar(&o.concurrency, "concurrency", 8, "requests in flight at a time")
	flag.IntVar(&o.limit, "limit", 0, "at most N vectors per CRD (0: all)")
	flag.Parse()
	if match != "" {
		re, err := regexp.Compile(match)
		if err != nil {
			fmt.Fprintln(os.Stderr, "e2e-objects: --match:", err)
			os.Exit(2)
		}
		o.match = re
	}
	if o.dir == "" || o.crdCel == "" || o.kubeconfig == "" || o.concurrency < 1 {
		fmt.Fprintln(os.Stderr, "usage: e2e-objects --dir DIR --crd-cel BIN [--set generated] [--kubeconfig FILE] [--concurrency 8] [--limit N] [--match REGEX] [--json FILE] [--known FILE]")
		os.Exit(2)
	}
	if err := mainErr(o); err != nil {
		fmt.Fprintln(os.Stderr, "e2e-objects:", err)
		var d divergences
		if errors.As(err, &d) {
			os.Exit(1)
		}
		os.Exit(2)
	}
}

func mainErr(o options) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 5000, 5000
	cfg.Timeout = 60 * time.Second
	cfg.ContentType = "application/json"
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	cfg.WarningHandler = rest.NoWarnings{}
	rc, err := rest.UnversionedRESTClientFor(cfg)
	if err != nil {
		return err
	}
	c := &client{rc: rc, namespaces: map[string]bool{}}

	var known []knownCase
	if o.known != "" {
		if known, err = readKnown(o.known); err != nil {
			return err
		}
	}
	groups, err := readGroups(o)
	if err != nil {
		return err
	}
	scratch, err := os.MkdirTemp("", "e2e-objects-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)

	ctx := context.Background()
	var serverTime, crdCelTime, installTime time.Duration
	var serverRequests, crdCelDocs int
	t0 := time.Now()
	for gi, g := range groups {
		ti := time.Now()
		if g.err == "" {
			if err := c.ensureCRD(ctx, g.crd); err != nil {
				g.err = err.Error()
			}
			installTime += time.Since(ti)
		}
		ts := time.Now()
		sent := 0
		if g.err != "" {
			for _, it := range g.all() {
				it.Server.Err = "CRD: " + g.err
			}
		} else {
			sent = c.serveGroup(ctx, g, o.concurrency)
			serverRequests += sent
			serverTime += time.Since(ts)
		}
		dServer := time.Since(ts)
		tc := time.Now()
		docs := crdCelGroup(o, g, scratch)
		crdCelDocs += docs
		crdCelTime += time.Since(tc)
		dCRDCel := time.Since(tc)
		for _, it := range g.all() {
			it.Server.Text = normalize(it.Server.Text)
			it.RawServer = normalize(it.RawServer)
			it.CRDCel.Text = normalize(it.CRDCel.Text)
		}
		fmt.Fprintf(os.Stderr, "e2e-objects: [%d/%d] %s (%s): install %.1f s, %d requests in %.1f s (%.0f/s), crd-cel %d documents in %.2f s\n",
			gi+1, len(groups), g.name, g.path, ts.Sub(ti).Seconds(), sent, dServer.Seconds(), float64(sent)/dServer.Seconds(), docs, dCRDCel.Seconds())
	}
	tr := time.Now()
	if err := c.removeCRD(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "e2e-objects: removing the last CRD:", err)
	}
	installTime += time.Since(tr)
	total := time.Since(t0)
	rates := fmt.Sprintf("e2e objects: %d requests through the server in %.1f s of requests (%.0f/s; CRD installs and removals %.1f s more), %d documents through crd-cel in %.1f s (%.0f/s), %.1f s in all",
		serverRequests, serverTime.Seconds(), float64(serverRequests)/serverTime.Seconds(), installTime.Seconds(),
		crdCelDocs, crdCelTime.Seconds(), float64(crdCelDocs)/crdCelTime.Seconds(), total.Seconds())
	return report(o, groups, known, rates)
}

func (g *crdGroup) all() []*item {
	out := append([]*item(nil), g.creates...)
	for _, og := range g.olds {
		out = append(out, og.create)
		out = append(out, og.updates...)
	}
	return out
}

// ---- reading the vectors

var fileIndex = regexp.MustCompile(`([0-9]+)\.json$`)

func readGroups(o options) ([]*crdGroup, error) {
	files, _ := filepath.Glob(filepath.Join(o.dir, "vectors", o.set, "*.json"))
	// objects.py names them CRDFILE-DOC-INDEX.json; sort the index numerically.
	sort.SliceStable(files, func(i, j int) bool {
		bi, bj := filepath.Base(files[i]), filepath.Base(files[j])
		pi, pj := bi[:strings.LastIndex(bi, "-")+1], bj[:strings.LastIndex(bj, "-")+1]
		if pi != pj {
			return pi < pj
		}
		ni, _ := strconv.Atoi(fileIndex.FindStringSubmatch(bi)[1])
		nj, _ := strconv.Atoi(fileIndex.FindStringSubmatch(bj)[1])
		return ni < nj
	})
	if len(files) == 0 {
		return nil, fmt.Errorf("no vectors in %s", filepath.Join(o.dir, "vectors", o.set))
	}
	byPath := map[string]*crdGroup{}
	var groups []*crdGroup
	for _, f := range files {
		if filepath.Base(f) == "_index.json" || !fileIndex.MatchString(f) {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		v := &vector{}
		if err := json.Unmarshal(data, v); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if len(v.CRDPaths) == 0 {
			return nil, fmt.Errorf("%s: no crdPaths", f)
		}
		if v.Subresource != nil && *v.Subresource != "" {
			return nil, fmt.Errorf("%s: subresource %q: only main-resource requests are supported", f, *v.Subresource)
		}
		g := byPath[v.CRDPaths[0]]
		if g == nil {
			kind, version := objectKindVersion(v.Object)
			if v.Kind != "" {
				kind = v.Kind
			}
			if v.Version != "" {
				version = v.Version
			}
			g = &crdGroup{path: v.CRDPaths[0], kind: kind, version: version, oldIndex: map[string]*oldGroup{}}
			if crd, err := loadCRD(filepath.Join(o.dir, g.path), kind); err != nil {
				g.err = err.Error()
				g.name = g.path
			} else {
				g.name = str(crd, "metadata", "name")
				if g.crd, err = forServer(crd, version); err != nil {
					g.err = err.Error()
				}
			}
			if o.match != nil && !o.match.MatchString(g.name) && !o.match.MatchString(g.path) {
				byPath[v.CRDPaths[0]] = &crdGroup{} // skipped
				continue
			}
			byPath[v.CRDPaths[0]] = g
			groups = append(groups, g)
		} else if g.path == "" {
			continue // not matched
		}
		if o.limit > 0 && g.vectors >= o.limit {
			continue
		}
		g.vectors++
		it := &item{CRD: g.name, File: filepath.Base(f), Op: "CREATE", Object: v.Object, Name: metaOf(v.Object).Name, Expected: v.ServerText}
		if strings.EqualFold(v.Operation, "UPDATE") && present(v.OldObject) {
			it.Op = "UPDATE"
			key := hashOf(v.OldObject)
			it.OldKey = key
			og := g.oldIndex[key]
			if og == nil {
				og = &oldGroup{key: key, object: v.OldObject}
				og.create = &item{CRD: g.name, File: it.File, Op: "OLD", Object: v.OldObject, Name: metaOf(v.OldObject).Name, OldKey: key}
				g.oldIndex[key] = og
				g.olds = append(g.olds, og)
			}
			og.updates = append(og.updates, it)
		} else {
			g.creates = append(g.creates, it)
		}
	}
	return groups, nil
}

func hashOf(b []byte) string {
	var v any
	if json.Unmarshal(b, &v) == nil {
		b, _ = json.Marshal(v) // keys sorted
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:8])
}

func present(raw json.RawMessage) bool {
	t := strings.TrimSpace(string(raw))
	return t != "" && t != "null"
}

func objectKindVersion(obj json.RawMessage) (kind, version string) {
	var m struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	_ = json.Unmarshal(obj, &m)
	version = m.APIVersion
	if i := strings.LastIndex(version, "/"); i >= 0 {
		version = version[i+1:]
	}
	return m.Kind, version
}

func decodeJSON(data []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

// loadCRD is the CRD document of kind in a YAML stream.
func loadCRD(path, kind string) (map[string]any, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rd := utilyaml.NewYAMLReader(bufio.NewReader(f))
	for {
		doc, err := rd.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		j, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(bytes.TrimSpace(j)) == 0 || string(bytes.TrimSpace(j)) == "null" {
			continue
		}
		m, err := decodeJSON(j)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if m["kind"] == "CustomResourceDefinition" && str(m, "spec", "names", "kind") == kind {
			return m, nil
		}
	}
	return nil, fmt.Errorf("%s: no CRD of kind %q", path, kind)
}

func str(m map[string]any, path ...string) string {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = mm[p]
	}
	s, _ := cur.(string)
	return s
}

// forServer is the CRD as installed: only version served (and stored), no status or server-set
// metadata (as cmd/e2e-vectors installs it).
func forServer(crd map[string]any, version string) (map[string]any, error) {
	b, err := json.Marshal(crd)
	if err != nil {
		return nil, err
	}
	out, err := decodeJSON(b)
	if err != nil {
		return nil, err
	}
	delete(out, "status")
	if md, ok := out["metadata"].(map[string]any); ok {
		for _, k := range []string{"creationTimestamp", "resourceVersion", "uid", "generation", "managedFields", "selfLink"} {
			delete(md, k)
		}
	}
	spec, _ := out["spec"].(map[string]any)
	versions, _ := spec["versions"].([]any)
	var kept []any
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		if vm != nil && vm["name"] == version {
			vm["served"] = true
			vm["storage"] = true
			kept = append(kept, vm)
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("CRD %s has no version %q", str(out, "metadata", "name"), version)
	}
	spec["versions"] = kept
	return out, nil
}

// ---- the server

type client struct {
	rc         *rest.RESTClient
	installed  map[string]any
	namespaces map[string]bool
}

type result struct {
	body   []byte
	status *metav1.Status
	err    error
}

func (c *client) do(ctx context.Context, verb, path string, params map[string]string, body []byte, contentType string) result {
	req := c.rc.Verb(verb).AbsPath(path)
	for k, v := range params {
		req = req.Param(k, v)
	}
	if body != nil {
		if contentType == "" {
			contentType = "application/json"
		}
		req = req.SetHeader("Content-Type", contentType).Body(body)
	}
	res := req.Do(ctx)
	raw, err := res.Raw()
	if err != nil {
		err = res.Error()
		var se apierrors.APIStatus
		if errors.As(err, &se) {
			st := se.Status()
			return result{status: &st}
		}
		return result{err: err}
	}
	return result{body: raw}
}

func (res result) isNotFound() bool {
	return res.status != nil && res.status.Reason == metav1.StatusReasonNotFound
}

func (res result) failure() error {
	if res.err != nil {
		return res.err
	}
	if res.status != nil {
		return errors.New(res.status.Message)
	}
	return nil
}

const crdsPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

var dryRun = map[string]string{"dryRun": "All"}

func poll(ctx context.Context, timeout time.Duration, what string, f func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := f()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s waiting for %s", timeout, what)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// removeCRD deletes the installed CRD (and with it the objects created under it) and waits
// until it is gone.
func (c *client) removeCRD(ctx context.Context) error {
	if c.installed == nil {
		return nil
	}
	name := str(c.installed, "metadata", "name")
	c.installed = nil
	res := c.do(ctx, "DELETE", crdsPath+"/"+name, nil, nil, "")
	if res.isNotFound() {
		return nil
	}
	if err := res.failure(); err != nil {
		return err
	}
	return poll(ctx, 120*time.Second, "CRD "+name+" to be deleted", func() (bool, error) {
		g := c.do(ctx, "GET", crdsPath+"/"+name, nil, nil, "")
		if g.isNotFound() {
			return true, nil
		}
		return false, g.err
	})
}

func resourcePath(crd map[string]any, ns string) string {
	group := str(crd, "spec", "group")
	plural := str(crd, "spec", "names", "plural")
	versions, _ := crd["spec"].(map[string]any)["versions"].([]any)
	version := str(versions[0].(map[string]any), "name")
	p := "/apis/" + group + "/" + version
	if namespaced(crd) {
		p += "/namespaces/" + ns
	}
	return p + "/" + plural
}

func namespaced(crd map[string]any) bool {
	return str(crd, "spec", "scope") != "Cluster"
}

// ensureCRD makes crd the installed CRD: the previous one deleted, this one created, then
// Established and served.
func (c *client) ensureCRD(ctx context.Context, crd map[string]any) error {
	if c.installed != nil && reflect.DeepEqual(c.installed, crd) {
		return nil
	}
	name := str(crd, "metadata", "name")
	body, _ := json.Marshal(crd)
	if err := c.removeCRD(ctx); err != nil {
		return err
	}
	if g := c.do(ctx, "GET", crdsPath+"/"+name, nil, nil, ""); g.err == nil && g.status == nil {
		c.installed = map[string]any{"metadata": map[string]any{"name": name}}
		if err := c.removeCRD(ctx); err != nil {
			return err
		}
	}
	if err := c.do(ctx, "POST", crdsPath, nil, body, "").failure(); err != nil {
		return fmt.Errorf("creating CRD %s: %w", name, err)
	}
	c.installed = crd
	err := poll(ctx, 60*time.Second, "CRD "+name+" to be Established", func() (bool, error) {
		g := c.do(ctx, "GET", crdsPath+"/"+name, nil, nil, "")
		if g.err != nil {
			return false, g.err
		}
		if g.status != nil {
			return false, nil
		}
		var got struct {
			Status struct {
				Conditions []struct{ Type, Status string } `json:"conditions"`
			} `json:"status"`
		}
		_ = json.Unmarshal(g.body, &got)
		for _, cond := range got.Status.Conditions {
			if cond.Type == "Established" && cond.Status == "True" {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	list := resourcePath(crd, "default")
	return poll(ctx, 30*time.Second, "the resources of CRD "+name+" to be served", func() (bool, error) {
		l := c.do(ctx, "GET", list, nil, nil, "")
		return l.err == nil && l.status == nil, nil
	})
}

func (c *client) ensureNamespace(ctx context.Context, ns string) error {
	if c.namespaces[ns] {
		return nil
	}
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, ns)
	res := c.do(ctx, "POST", "/api/v1/namespaces", nil, []byte(body), "")
	if res.status != nil && res.status.Reason == metav1.StatusReasonAlreadyExists {
		res = result{}
	}
	if err := res.failure(); err != nil {
		return fmt.Errorf("namespace %s: %w", ns, err)
	}
	c.namespaces[ns] = true
	return nil
}

type objMeta struct {
	Name            string `json:"name"`
	Namespace       string `json:"namespace"`
	ResourceVersion string `json:"resourceVersion"`
}

func metaOf(data []byte) objMeta {
	var m struct {
		Metadata objMeta `json:"metadata"`
	}
	_ = json.Unmarshal(data, &m)
	return m.Metadata
}

// collection is the URL objects are posted to, the namespace created when missing.
func (c *client) collection(ctx context.Context, crd map[string]any, obj []byte) (string, error) {
	if !namespaced(crd) {
		return resourcePath(crd, ""), nil
	}
	ns := metaOf(obj).Namespace
	if ns == "" {
		ns = "default"
	}
	if err := c.ensureNamespace(ctx, ns); err != nil {
		return "", err
	}
	return resourcePath(crd, ns), nil
}

// parallel runs f on every item, n at a time.
func parallel(items []*item, n int, f func(*item)) {
	ch := make(chan *item)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range ch {
				f(it)
			}
		}()
	}
	for _, it := range items {
		ch <- it
	}
	close(ch)
	wg.Wait()
}

// serveGroup sends a CRD's requests: its creates as dry runs, each old object for real, and
// the updates of the old objects the server stored as dry runs. The number of requests sent.
func (c *client) serveGroup(ctx context.Context, g *crdGroup, n int) int {
	sent := 0
	// Namespaces first: parallel requests must not race to create them.
	colls := map[*item]string{}
	for _, it := range g.all() {
		coll, err := c.collection(ctx, g.crd, it.Object)
		if err != nil {
			it.Server.Err = err.Error()
			continue
		}
		colls[it] = coll
	}
	var creates []*item
	for _, it := range g.creates {
		if it.Server.Err == "" {
			creates = append(creates, it)
		}
	}
	parallel(creates, n, func(it *item) {
		res := c.do(ctx, "POST", colls[it], dryRun, it.Object, "")
		it.Server, it.RawServer = verdict(res)
	})
	sent += len(creates)

	// The old objects, for real (their names differ from one another and from the creates').
	var updates []*item
	bodies := map[*item][]byte{}
	for _, og := range g.olds {
		if og.create.Server.Err != "" {
			continue
		}
		res := c.do(ctx, "POST", colls[og.create], nil, og.object, "")
		sent++
		og.create.Server, og.create.RawServer = verdict(res)
		if res.status != nil && res.status.Reason == metav1.StatusReasonAlreadyExists {
			og.create.Server = answer{Err: "create: " + res.status.Message + " (left over from an earlier run?)"}
		}
		if res.err != nil || res.status != nil {
			for _, u := range og.updates {
				u.Skipped = "the server refused the old object"
			}
			continue
		}
		stored := metaOf(res.body)
		for _, u := range og.updates {
			if u.Server.Err != "" {
				continue
			}
			obj, err := decodeJSON(u.Object)
			if err != nil {
				u.Server.Err = "object: " + err.Error()
				continue
			}
			md, _ := obj["metadata"].(map[string]any)
			if md == nil {
				md = map[string]any{}
				obj["metadata"] = md
			}
			if _, ok := md["resourceVersion"]; !ok {
				md["resourceVersion"] = stored.ResourceVersion
			}
			name, _ := md["name"].(string)
			if name == "" {
				name = stored.Name
			}
			body, _ := json.Marshal(obj)
			bodies[u] = body
			colls[u] = colls[u] + "/" + name
			updates = append(updates, u)
		}
	}
	parallel(updates, n, func(it *item) {
		res := c.do(ctx, "PUT", colls[it], dryRun, bodies[it], "")
		it.Server, it.RawServer = verdict(res)
	})
	sent += len(updates)
	return sent
}

func verdict(res result) (answer, string) {
	if res.err != nil {
		return answer{Err: res.err.Error()}, ""
	}
	if res.status == nil {
		return answer{Valid: true}, ""
	}
	text := canonical(*res.status)
	raw := ""
	if text != res.status.Message {
		raw = res.status.Message
	}
	a := answer{Text: text}
	a.Prefix, a.Causes = canonicalCauses(*res.status)
	return a, raw
}

// canonicalCauses is what canonical rebuilds an Invalid Status's message from: the text up to
// " is invalid: " and the causes sorted by field, without repeats; nothing when they do not
// rebuild the message.
func canonicalCauses(st metav1.Status) (string, []string) {
	if st.Reason != metav1.StatusReasonInvalid || st.Details == nil || len(st.Details.Causes) == 0 {
		return "", nil
	}
	text := canonical(st)
	const sep = " is invalid: "
	i := strings.Index(st.Message, sep)
	if i < 0 {
		return "", nil
	}
	prefix := st.Message[:i+len(sep)]
	causes := append([]metav1.StatusCause(nil), st.Details.Causes...)
	sort.SliceStable(causes, func(i, j int) bool { return causes[i].Field < causes[j].Field })
	seen := map[string]bool{}
	var parts []string
	for _, c := range causes {
		m := c.Field + ": " + c.Message
		if !seen[m] {
			seen[m] = true
			parts = append(parts, m)
		}
	}
	if rebuild(prefix, parts) != text {
		return "", nil
	}
	return prefix, parts
}

func rebuild(prefix string, parts []string) string {
	if len(parts) == 1 {
		return prefix + parts[0]
	}
	return prefix + "[" + strings.Join(parts, ", ") + "]"
}

// canonical is the Status message with an Invalid Status's causes sorted by field, rebuilt as
// errors.NewInvalid builds it; the message itself when the causes do not rebuild it. (A copy of
// cmd/e2e-vectors' canonical, the oracle's canonicalisation.)
func canonical(st metav1.Status) string {
	msg := st.Message
	if st.Reason != metav1.StatusReasonInvalid || st.Details == nil || len(st.Details.Causes) == 0 {
		return msg
	}
	const sep = " is invalid: "
	i := strings.Index(msg, sep)
	if i < 0 {
		return msg
	}
	prefix := msg[:i+len(sep)]
	build := func(causes []metav1.StatusCause) string {
		seen := map[string]bool{}
		var parts []string
		for _, c := range causes {
			m := c.Field + ": " + c.Message
			if !seen[m] {
				seen[m] = true
				parts = append(parts, m)
			}
		}
		if len(parts) == 1 {
			return prefix + parts[0]
		}
		return prefix + "[" + strings.Join(parts, ", ") + "]"
	}
	if build(st.Details.Causes) != msg {
		return msg
	}
	causes := append([]metav1.StatusCause(nil), st.Details.Causes...)
	sort.SliceStable(causes, func(i, j int) bool { return causes[i].Field < causes[j].Field })
	return build(causes)
}

var selfType = regexp.MustCompile(`selfType[0-9]+`)

func normalize(text string) string {
	return selfType.ReplaceAllString(text, "selfType<N>")
}

// ---- crd-cel

// crdCelGroup runs crd-cel over a CRD's creates, its old objects (as creates) and, per old
// object, its updates. The number of documents validated.
func crdCelGroup(o options, g *crdGroup, scratch string) int {
	docs := 0
	if g.err != "" && g.crd == nil {
		for _, it := range g.all() {
			it.CRDCel.Err = "CRD: " + g.err
		}
		return 0
	}
	crdFile := filepath.Join(o.dir, g.path)
	crdCelBatch(o, crdFile, "", g.creates, scratch)
	docs += len(g.creates)
	var olds []*item
	for _, og := range g.olds {
		olds = append(olds, og.create)
	}
	crdCelBatch(o, crdFile, "", olds, scratch)
	docs += len(olds)
	for _, og := range g.olds {
		var sent []*item
		for _, u := range og.updates {
			if u.Skipped == "" {
				sent = append(sent, u)
			}
		}
		if len(sent) == 0 {
			continue
		}
		oldFile := filepath.Join(scratch, "old.json")
		if err := os.WriteFile(oldFile, og.object, 0o644); err != nil {
			for _, u := range sent {
				u.CRDCel.Err = err.Error()
			}
			continue
		}
		crdCelBatch(o, crdFile, oldFile, sent, scratch)
		docs += len(sent)
	}
	return docs
}

// crdCelBatch validates items with one crd-cel call, or one per item when the batch does not
// answer a line per document.
func crdCelBatch(o options, crdFile, oldFile string, items []*item, scratch string) {
	if len(items) == 0 {
		return
	}
	answers, err := crdCelRun(o, crdFile, oldFile, items, scratch)
	if err == nil && len(answers) == len(items) {
		for i, it := range items {
			it.CRDCel = answers[i]
		}
		return
	}
	if len(items) == 1 {
		if err == nil {
			err = fmt.Errorf("%d answers for one document", len(answers))
		}
		items[0].CRDCel = answer{Err: err.Error()}
		return
	}
	for _, it := range items {
		crdCelBatch(o, crdFile, oldFile, []*item{it}, scratch)
	}
}

func crdCelRun(o options, crdFile, oldFile string, items []*item, scratch string) ([]answer, error) {
	var stream bytes.Buffer
	for _, it := range items {
		stream.WriteString("---\n")
		stream.Write(bytes.TrimSpace(it.Object))
		stream.WriteString("\n")
	}
	file := filepath.Join(scratch, "objects.yaml")
	if err := os.WriteFile(file, stream.Bytes(), 0o644); err != nil {
		return nil, err
	}
	args := []string{"validate", "--crd", crdFile, "--field-validation", "warn",
		"--kubernetes-version", o.k8sVersion, "-o", "jsonl"}
	if oldFile != "" {
		args = append(args, "--old", oldFile)
	}
	args = append(args, file)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, o.crdCel, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return nil, err
		}
		code = ee.ExitCode()
	}
	if code != 0 && code != 1 {
		return nil, fmt.Errorf("exit %d: %s%s", code, strings.TrimSpace(stdout.String()), strings.TrimSpace(stderr.String()))
	}
	out := make([]answer, len(items))
	seen := 0
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	for sc.Scan() {
		var got struct {
			Doc    *int   `json:"doc"`
			Valid  bool   `json:"valid"`
			Text   string `json:"text"`
			Errors []struct {
				Message string `json:"message"`
			} `json:"errors"`
		}
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil || got.Doc == nil || *got.Doc < 0 || *got.Doc >= len(items) {
			return nil, fmt.Errorf("unexpected line %q", sc.Text())
		}
		a := answer{Valid: got.Valid, Text: got.Text}
		dup := map[string]bool{}
		for _, e := range got.Errors {
			if !dup[e.Message] {
				dup[e.Message] = true
				a.Causes = append(a.Causes, normalize(e.Message))
			}
		}
		out[*got.Doc] = a
		seen++
	}
	if seen != len(items) {
		return nil, fmt.Errorf("%d lines for %d documents", seen, len(items))
	}
	return out, nil
}

// ---- the report

func same(a, b answer) (verdict, text bool) {
	if a.Err != "" || b.Err != "" {
		return false, false
	}
	verdict = a.Valid == b.Valid
	return verdict, verdict && a.Text == b.Text
}

// knownCase explains divergences: crd-cel's and the server's answers (`valid` or the
// canonical text) matching its regular expressions, on a CRD whose name matches its own.
type knownCase struct {
	name                string
	crd, server, crdCel *regexp.Regexp
	// dropServer: the server's causes crd-cel lacks all match it; with them left out, the
	// server's text must be crd-cel's exactly (valid when no cause is left).
	dropServer *regexp.Regexp
	// reordered: both have the same causes, and those not at the same place match it.
	reordered *regexp.Regexp
	line      int
	matched   int
}

// readKnown reads blocks of `case NAME` then `crd REGEX`, `server REGEX`, `crd-cel REGEX`,
// `drop-server REGEX` lines (each optional: a missing one matches anything); `#` comments.
// crd matches the CRD's name, server and crd-cel the answers (`valid` or the canonical text);
// with drop-server, the server's causes that crd-cel lacks must all match it, and without them
// the server's text must be crd-cel's exactly; with reordered, both must have the same causes,
// those at different places matching it.
func readKnown(file string) ([]knownCase, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out []knownCase
	for n, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, _ := strings.Cut(line, " ")
		val = strings.TrimSpace(val)
		if key == "case" {
			out = append(out, knownCase{name: val, line: n + 1})
			continue
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%s:%d: %q before any `case NAME`", file, n+1, key)
		}
		re, err := regexp.Compile(val)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, n+1, err)
		}
		k := &out[len(out)-1]
		switch key {
		case "crd":
			k.crd = re
		case "server":
			k.server = re
		case "crd-cel":
			k.crdCel = re
		case "drop-server":
			k.dropServer = re
		case "reordered":
			k.reordered = re
		default:
			return nil, fmt.Errorf("%s:%d: unknown key %q (case, crd, server, crd-cel, drop-server, reordered)", file, n+1, key)
		}
	}
	return out, nil
}

func answerText(a answer) string {
	if a.Valid {
		return "valid"
	}
	return a.Text
}

func (k *knownCase) explains(it *item) bool {
	text := answerText
	if k.dropServer != nil {
		if len(it.Server.Causes) == 0 || it.Server.Valid {
			return false
		}
		has := map[string]bool{}
		for _, c := range it.CRDCel.Causes {
			has[c] = true
		}
		var kept []string
		dropped := false
		for _, c := range it.Server.Causes {
			switch {
			case has[normalize(c)]:
				kept = append(kept, c)
			case k.dropServer.MatchString(c):
				dropped = true
			default:
				return false
			}
		}
		if !dropped {
			return false
		}
		want := "valid"
		if len(kept) > 0 {
			want = rebuild(it.Server.Prefix, kept)
		}
		if normalize(want) != text(it.CRDCel) {
			return false
		}
	}
	if k.reordered != nil {
		s, c := it.Server.Causes, it.CRDCel.Causes
		if it.Server.Valid || it.CRDCel.Valid || len(s) == 0 || len(s) != len(c) {
			return false
		}
		count := map[string]int{}
		for i := range s {
			count[normalize(s[i])]++
			count[c[i]]--
			if normalize(s[i]) != c[i] && !(k.reordered.MatchString(s[i]) && k.reordered.MatchString(c[i])) {
				return false
			}
		}
		for _, n := range count {
			if n != 0 {
				return false
			}
		}
		if normalize(rebuild(it.Server.Prefix, c)) != text(it.CRDCel) {
			return false
		}
	}
	return (k.crd == nil || k.crd.MatchString(it.CRD)) &&
		(k.server == nil || k.server.MatchString(text(it.Server))) &&
		(k.crdCel == nil || k.crdCel.MatchString(text(it.CRDCel)))
}

type divergences []string

func (d divergences) Error() string {
	return fmt.Sprintf("%d divergence(s) no known case explains:\n  %s", len(d), strings.Join(d, "\n  "))
}

type tally struct {
	creates, updates, olds, oldsRefused, skipped int
	serverInvalid, serverErr, crdCelErr          int
	n, verdict, text                             int
	oldVerdict, oldText                          int
	explained                                    int
	expected, expectedSame                       int
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("... (%d bytes)", len(s))
}

func report(o options, groups []*crdGroup, known []knownCase, rates string) error {
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	var unexplained divergences
	var all []*item
	total := &tally{}
	tallies := make([]*tally, len(groups))
	for gi, g := range groups {
		t := &tally{}
		tallies[gi] = t
		for _, it := range g.all() {
			all = append(all, it)
			switch it.Op {
			case "CREATE":
				t.creates++
			case "UPDATE":
				t.updates++
			case "OLD":
				t.olds++
				if it.Server.Err == "" && !it.Server.Valid {
					t.oldsRefused++
				}
			}
			if it.Skipped != "" {
				t.skipped++
				continue
			}
			if it.Server.Err != "" {
				t.serverErr++
			} else if !it.Server.Valid {
				t.serverInvalid++
			}
			if it.CRDCel.Err != "" {
				t.crdCelErr++
			}
			if it.Expected != nil {
				t.expected++
				if got := answerText(it.Server); it.Server.Err == "" && got == *it.Expected {
					t.expectedSame++
				} else {
					fmt.Fprintf(w, "SERVER CHANGED %s %s %s/%s: the case recorded\n  %s\n  the server now answers\n  %s\n\n", g.name, it.Op, o.set, it.File, *it.Expected, it.Server)
					unexplained = append(unexplained, fmt.Sprintf("%s %s %s (the server's answer is not the recorded one)", g.name, it.Op, it.File))
				}
			}
			v, x := same(it.Server, it.CRDCel)
			if it.Op == "OLD" {
				if v {
					t.oldVerdict++
				}
				if x {
					t.oldText++
				}
			} else {
				t.n++
				if v {
					t.verdict++
				}
				if x {
					t.text++
				}
			}
			if v && x {
				continue
			}
			explainedBy := ""
			if it.Server.Err == "" && it.CRDCel.Err == "" {
				for i := range known {
					if known[i].explains(it) {
						known[i].matched++
						explainedBy = known[i].name
						break
					}
				}
			}
			kind := "TEXT"
			if !v {
				kind = "VERDICT"
			}
			if it.Server.Err != "" || it.CRDCel.Err != "" {
				kind = "ERROR"
			}
			fmt.Fprintf(w, "DIVERGENCE (%s) %s %s %s/%s [%s]", kind, g.name, it.Op, o.set, it.File, it.Name)
			if explainedBy != "" {
				t.explained++
				fmt.Fprintf(w, "  explained: %s", explainedBy)
			} else {
				unexplained = append(unexplained, fmt.Sprintf("%s %s %s (%s)", g.name, it.Op, it.File, kind))
			}
			fmt.Fprintf(w, "\n  object:  %s\n", clip(string(it.Object), 4000))
			if it.Op == "UPDATE" {
				fmt.Fprintf(w, "  old:     %s\n", clip(string(g.oldIndex[it.OldKey].object), 4000))
			}
			fmt.Fprintf(w, "  server:  %s\n", it.Server)
			if it.RawServer != "" {
				fmt.Fprintf(w, "           (as sent: %s)\n", it.RawServer)
			}
			fmt.Fprintf(w, "  crd-cel: %s\n\n", it.CRDCel)
		}
		total.creates += t.creates
		total.updates += t.updates
		total.olds += t.olds
		total.oldsRefused += t.oldsRefused
		total.skipped += t.skipped
		total.serverInvalid += t.serverInvalid
		total.serverErr += t.serverErr
		total.crdCelErr += t.crdCelErr
		total.n += t.n
		total.verdict += t.verdict
		total.text += t.text
		total.oldVerdict += t.oldVerdict
		total.oldText += t.oldText
		total.explained += t.explained
		total.expected += t.expected
		total.expectedSame += t.expectedSame
	}
	fmt.Fprintf(w, "%-58s %-9s %7s %7s %9s %7s %8s %8s %8s %9s %5s\n", "CRD (crd file)", "version", "creates", "updates",
		"olds(ref)", "skipped", "srv-inv", "verdict", "text", "old-text", "errs")
	line := func(name, version string, t *tally) {
		fmt.Fprintf(w, "%-58s %-9s %7d %7d %9s %7d %8d %8s %8s %9s %5d\n", clip(name, 58), version, t.creates, t.updates,
			fmt.Sprintf("%d(%d)", t.olds, t.oldsRefused), t.skipped, t.serverInvalid,
			fmt.Sprintf("%d/%d", t.verdict, t.n), fmt.Sprintf("%d/%d", t.text, t.n),
			fmt.Sprintf("%d/%d", t.oldText, t.olds), t.serverErr+t.crdCelErr)
	}
	for gi, g := range groups {
		line(g.name+" ("+strings.TrimSuffix(filepath.Base(g.path), ".yaml")+")", g.version, tallies[gi])
	}
	line("total", "", total)
	for _, k := range known {
		fmt.Fprintf(w, "known case %s: %d divergence(s)\n", k.name, k.matched)
	}
	if o.jsonOut != "" {
		b, _ := json.MarshalIndent(all, "", " ")
		if err := os.WriteFile(o.jsonOut, b, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, rates)
	fmt.Fprintf(w, "e2e objects: old objects created for real: %d/%d same verdict, %d/%d same text (%d refused by the server; their %d updates not sent)\n",
		total.oldVerdict, total.olds, total.oldText, total.olds, total.oldsRefused, total.skipped)
	if total.expected > 0 {
		fmt.Fprintf(w, "e2e objects: recorded server answers (cases): %d/%d the same\n", total.expectedSame, total.expected)
	}
	fmt.Fprintf(w, "e2e objects: %d divergence(s), %d explained by a known case, %d server errors, %d crd-cel errors\n",
		total.n-total.text+total.olds-total.oldText, total.explained, total.serverErr, total.crdCelErr)
	fmt.Fprintf(w, "e2e objects: server vs crd-cel: %d/%d same verdict, %d/%d same text\n", total.verdict, total.n, total.text, total.n)
	if len(unexplained) > 0 {
		return unexplained
	}
	return nil
}
