// Command e2e-vectors sends corpus vectors (CORPUS/vectors/SET/*.json) to a real kube-apiserver
// as a client would, and prints, per vector and CRD, what the server answered beside what
// crd-cel's command line and the oracle (tests/oracle) answer for the same request.
//
// Per run (a vector against one of its crdPaths): the CRD document of the vector's kind is
// installed with only the vector's version (served, storage), and stays installed while the
// next runs use the same CRD; the object goes to its metadata.namespace (else "default"; the
// namespace is created when missing), a cluster-scoped one to no namespace. CREATE is a POST of
// the vector's object as written. UPDATE creates the old object first (under the CRD patched
// with initialCRDPatches, when the vector has them; the CRD is then updated back), sets its
// status through the status subresource when the CRD has one and the old object has a status
// (for any update: a create drops the status), then PUTs the object (to /status for a status update) to the URL of its
// name (the stored name when it has none), with the stored resourceVersion when the body has
// none, as a client that read the object does. Everything the run created is deleted after it.
// The runs of one CRD name go in order through one client, --parallel names at a time.
//
// Compared: the verdict and the whole Status message. Two canonicalisations, the oracle's own
// (tests/oracle/README.md): an Invalid Status's causes are sorted by field (stable; the server
// visits sibling properties in map order) and the message rebuilt from them exactly as
// errors.NewInvalid builds it (only when rebuilding them in the server's order gives the
// server's message back), and selfType<digits> is written selfType<N>; and a name made from
// generateName has its 5-character suffix written #####.
package main

import (
	"bufio"
	"bytes"
	"context"
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
	"strings"
	"sync"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"
)

type vector struct {
	Name              string          `json:"name"`
	CRDPaths          []string        `json:"crdPaths"`
	Kind              string          `json:"kind"`
	Version           string          `json:"version"`
	Operation         string          `json:"operation"`
	Subresource       *string         `json:"subresource"`
	Object            json.RawMessage `json:"object"`
	OldObject         json.RawMessage `json:"oldObject"`
	Expect            string          `json:"expect"`
	InitialCRDPatches json.RawMessage `json:"initialCRDPatches"`
}

// answer is one side's answer to a run; err is set when that side could not answer.
type answer struct {
	Valid bool   `json:"valid"`
	Text  string `json:"text"`
	Err   string `json:"error,omitempty"`
	// Sent is crd-cel's message in its own order (its text output), where Text is the
	// canonical order (causes sorted by field) the oracle compares in.
	Sent string `json:"sent,omitempty"`
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

type run struct {
	Set     string `json:"set"`
	File    string `json:"file"`
	CRDPath string `json:"crdPath"`
	Server  answer `json:"server"`
	// RawServer is the server's message as sent, when the canonical text differs from it.
	RawServer string `json:"rawServer,omitempty"`
	CRDCel    answer `json:"crdCel"`
	Oracle    answer `json:"oracle"`

	v        *vector
	vecIndex int
	crd      map[string]any // the CRD as installed
	oldCRD   map[string]any // with initialCRDPatches, or nil
	genName  string
}

type options struct {
	root, crdCel, oracle, kubeconfig, jsonOut, k8sVersion string
	known                                                 string
	match                                                 *regexp.Regexp
	sets                                                  []string
	limit, parallel                                       int
}

func main() {
	var o options
	var sets, match string
	flag.StringVar(&o.root, "root", "", "corpus folder (holds vectors/SET/*.json)")
	flag.StringVar(&sets, "set", "", "vector sets, comma-separated")
	flag.IntVar(&o.limit, "limit", 0, "at most N vectors per set (0: all)")
	flag.StringVar(&match, "match", "", "only the vector files whose name matches this regular expression")
	flag.StringVar(&o.crdCel, "crd-cel", "", "crd-cel binary")
	flag.StringVar(&o.oracle, "oracle", "", "oracle binary (tests/oracle)")
	flag.StringVar(&o.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the server")
	flag.StringVar(&o.jsonOut, "json", "", "also write every run as JSON to this file")
	flag.StringVar(&o.k8sVersion, "kubernetes-version", "1.37", "crd-cel's --kubernetes-version")
	flag.IntVar(&o.parallel, "parallel", 4, "CRDs served at once (each by its own client, its runs in order)")
	flag.StringVar(&o.known, "known", "", "known-differences file: exit 1 on any difference it does not list (or a listed verdict/text difference that is gone)")
	flag.Parse()
	if match != "" {
		re, err := regexp.Compile(match)
		if err != nil {
			fmt.Fprintln(os.Stderr, "e2e-vectors: --match:", err)
			os.Exit(2)
		}
		o.match = re
	}
	for _, s := range strings.Split(sets, ",") {
		if s = strings.TrimSpace(s); s != "" {
			o.sets = append(o.sets, s)
		}
	}
	if o.root == "" || len(o.sets) == 0 || o.crdCel == "" || o.oracle == "" || o.kubeconfig == "" {
		fmt.Fprintln(os.Stderr, "usage: e2e-vectors --root DIR --set NAME[,NAME] [--limit N] --crd-cel BIN --oracle BIN [--kubeconfig FILE] [--json FILE]")
		os.Exit(2)
	}
	if err := mainErr(o); err != nil {
		var d differences
		if errors.As(err, &d) {
			fmt.Fprintln(os.Stderr, "e2e-vectors:", err)
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "e2e-vectors:", err)
		os.Exit(2)
	}
}

func mainErr(o options) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 1000, 1000
	cfg.Timeout = 60 * time.Second
	cfg.ContentType = "application/json"
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	cfg.WarningHandler = rest.NoWarnings{}
	rc, err := rest.UnversionedRESTClientFor(cfg)
	if err != nil {
		return err
	}
	nss := &namespaces{made: map[string]bool{}}

	scratch, err := os.MkdirTemp("", "e2e-vectors-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)

	var runs []*run
	var vectorsPerSet = map[string]int{}
	vecIndex := 0
	for _, set := range o.sets {
		files, _ := filepath.Glob(filepath.Join(o.root, "vectors", set, "*.json"))
		sort.Strings(files)
		n := 0
		for _, f := range files {
			if filepath.Base(f) == "_index.json" || (o.match != nil && !o.match.MatchString(filepath.Base(f))) {
				continue
			}
			if o.limit > 0 && n >= o.limit {
				break
			}
			n++
			vecIndex++
			data, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			v := &vector{}
			if err := json.Unmarshal(data, v); err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			for _, cp := range v.CRDPaths {
				r := &run{Set: set, File: filepath.Base(f), CRDPath: cp, v: v, vecIndex: vecIndex}
				r.genName = generateNameOf(v.Object)
				if err := r.prepareCRDs(o.root); err != nil {
					r.Server.Err = err.Error()
				}
				runs = append(runs, r)
			}
		}
		vectorsPerSet[set] = n
	}

	// crd-cel (one process per run) and the oracle (one per set) answer while the server
	// works: the server's runs mostly wait for CRDs to be served.
	t0 := time.Now()
	oracleAnswers := map[string]answer{}
	var oracleErr error
	var offline sync.WaitGroup
	offline.Add(1)
	go func() {
		defer offline.Done()
		for _, set := range o.sets {
			if oracleErr = oracleCorpus(o, set, oracleAnswers); oracleErr != nil {
				return
			}
		}
	}()
	// Creates against one CRD file go to one crd-cel process (the CRD read once); updates,
	// and a create whose batch answer is not one result, one process each.
	batches := map[string][]int{}
	var keys []string
	for i, r := range runs {
		if r.isUpdate() {
			continue
		}
		if _, ok := batches[r.CRDPath]; !ok {
			keys = append(keys, r.CRDPath)
		}
		batches[r.CRDPath] = append(batches[r.CRDPath], i)
	}
	jobs := make(chan []int)
	for w := 0; w < max(o.parallel/2, 1); w++ {
		offline.Add(1)
		go func() {
			defer offline.Done()
			for job := range jobs {
				if len(job) > 1 && crdCelBatch(o, runs, job, scratch) {
					continue
				}
				for _, i := range job {
					runs[i].CRDCel = crdCel(o, runs[i], filepath.Join(scratch, fmt.Sprint(i)))
				}
			}
		}()
	}
	go func() {
		for _, k := range keys {
			jobs <- batches[k]
		}
		for i, r := range runs {
			if r.isUpdate() {
				jobs <- []int{i}
			}
		}
		close(jobs)
	}()
	defer offline.Wait()

	// The server: runs grouped by the CRD they install, so that each CRD is installed once.
	// Runs of different CRD names touch nothing in common but namespaces, so each name's runs
	// go to their own client, in order, o.parallel names at a time (installing a CRD and
	// waiting for it to be served is most of the time).
	order := make([]*run, len(runs))
	copy(order, runs)
	sort.SliceStable(order, func(i, j int) bool {
		ki, kj := crdKey(order[i].crd), crdKey(order[j].crd)
		if ki != kj {
			return ki < kj
		}
		// The runs with a CRD change last in their group.
		return order[i].oldCRD == nil && order[j].oldCRD != nil
	})
	var byName [][]*run
	groupOf := map[string]int{}
	for _, r := range order {
		name := str(r.crd, "metadata", "name")
		g, ok := groupOf[name]
		if !ok {
			g = len(byName)
			groupOf[name] = g
			byName = append(byName, nil)
		}
		byName[g] = append(byName[g], r)
	}
	ctx := context.Background()
	work := make(chan []*run)
	var wg sync.WaitGroup
	for w := 0; w < max(o.parallel, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for group := range work {
				c := &client{rc: rc, namespaces: nss}
				for _, r := range group {
					if r.Server.Err != "" {
						continue
					}
					r.Server, r.RawServer = c.serve(ctx, r)
				}
				if err := c.removeCRD(ctx); err != nil {
					fmt.Fprintln(os.Stderr, "e2e-vectors: removing a CRD:", err)
				}
			}
		}()
	}
	for _, g := range byName {
		work <- g
	}
	close(work)
	wg.Wait()
	fmt.Fprintf(os.Stderr, "e2e-vectors: %d runs of %d CRDs through the server in %.1f s (%d at once)\n",
		len(runs), len(byName), time.Since(t0).Seconds(), max(o.parallel, 1))
	offline.Wait()
	fmt.Fprintf(os.Stderr, "e2e-vectors: crd-cel's and the oracle's answers ready after %.1f s\n", time.Since(t0).Seconds())

	// The oracle's and crd-cel's answers, per run.
	if oracleErr != nil {
		return oracleErr
	}
	for _, r := range runs {
		if a, ok := oracleAnswers[r.Set+"/"+r.File+"|"+r.CRDPath]; ok {
			r.Oracle = a
		} else {
			r.Oracle = answer{Err: "no oracle answer"}
		}
		for _, a := range []*answer{&r.Server, &r.CRDCel, &r.Oracle} {
			a.Text = normalize(a.Text, r.genName)
			a.Sent = normalize(a.Sent, r.genName)
		}
		r.RawServer = normalize(r.RawServer, r.genName)
	}

	return report(o, runs, vectorsPerSet)
}

// ---- vectors and CRDs

func generateNameOf(obj json.RawMessage) string {
	var m struct {
		Metadata struct {
			Name         string `json:"name"`
			GenerateName string `json:"generateName"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(obj, &m)
	if m.Metadata.Name != "" {
		return ""
	}
	return m.Metadata.GenerateName
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

func (r *run) kindVersion() (string, string) {
	kind, version := objectKindVersion(r.v.Object)
	if r.v.Kind != "" {
		kind = r.v.Kind
	}
	if r.v.Version != "" {
		version = r.v.Version
	}
	return kind, version
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
		if m["kind"] != "CustomResourceDefinition" {
			continue
		}
		if str(m, "spec", "names", "kind") == kind {
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
// metadata.
func forServer(crd map[string]any, version string) (map[string]any, error) {
	out, err := deepCopy(crd)
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

func deepCopy(m map[string]any) (map[string]any, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return decodeJSON(b)
}

func crdKey(crd map[string]any) string {
	if crd == nil {
		return ""
	}
	b, _ := json.Marshal(crd)
	return str(crd, "metadata", "name") + "\x00" + string(b)
}

func (r *run) prepareCRDs(root string) error {
	kind, version := r.kindVersion()
	crd, err := loadCRD(filepath.Join(root, r.CRDPath), kind)
	if err != nil {
		return err
	}
	if r.crd, err = forServer(crd, version); err != nil {
		return err
	}
	if r.isUpdate() && present(r.v.InitialCRDPatches) {
		b, _ := json.Marshal(crd)
		p, err := jsonpatch.DecodePatch(r.v.InitialCRDPatches)
		if err != nil {
			return fmt.Errorf("initialCRDPatches: %w", err)
		}
		if b, err = p.Apply(b); err != nil {
			return fmt.Errorf("initialCRDPatches: %w", err)
		}
		patched, err := decodeJSON(b)
		if err != nil {
			return err
		}
		if r.oldCRD, err = forServer(patched, version); err != nil {
			return err
		}
	}
	return nil
}

func present(raw json.RawMessage) bool {
	t := strings.TrimSpace(string(raw))
	return t != "" && t != "null" && t != "[]"
}

func (r *run) isUpdate() bool {
	return strings.EqualFold(r.v.Operation, "UPDATE") && present(r.v.OldObject)
}

func (r *run) status() bool {
	return r.v.Subresource != nil && *r.v.Subresource == "status"
}

// ---- the server

type client struct {
	rc         *rest.RESTClient
	installed  map[string]any // the CRD installed now
	namespaces *namespaces
}

// result is a request's outcome: the body on success, the Status on an API error.
type result struct {
	body   []byte
	status *metav1.Status
	err    error // transport or decoding trouble
}

func (c *client) do(ctx context.Context, verb, path string, body []byte, contentType string) result {
	req := c.rc.Verb(verb).AbsPath(path)
	if body != nil {
		if contentType == "" {
			contentType = "application/json"
		}
		req = req.SetHeader("Content-Type", contentType).Body(body)
	}
	res := req.Do(ctx)
	raw, err := res.Raw()
	if err != nil {
		// Raw gives a generic error for a failure status; Error decodes the Status body.
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

// removeCRD deletes the installed CRD and waits until it is gone.
func (c *client) removeCRD(ctx context.Context) error {
	if c.installed == nil {
		return nil
	}
	name := str(c.installed, "metadata", "name")
	c.installed = nil
	res := c.do(ctx, "DELETE", crdsPath+"/"+name, nil, "")
	if res.isNotFound() {
		return nil
	}
	if err := res.failure(); err != nil {
		return err
	}
	return poll(ctx, 60*time.Second, "CRD "+name+" to be deleted", func() (bool, error) {
		g := c.do(ctx, "GET", crdsPath+"/"+name, nil, "")
		if g.isNotFound() {
			return true, nil
		}
		return false, g.err
	})
}

// resourcePath is the collection URL of the CRD's version in namespace ns.
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

// hasStatusSubresource says whether the installed version of crd has the status subresource.
func hasStatusSubresource(crd map[string]any) bool {
	versions, _ := crd["spec"].(map[string]any)["versions"].([]any)
	if len(versions) == 0 {
		return false
	}
	v, _ := versions[0].(map[string]any)
	sub, _ := v["subresources"].(map[string]any)
	_, ok := sub["status"]
	return ok
}

func namespaced(crd map[string]any) bool {
	return str(crd, "spec", "scope") != "Cluster"
}

// ensureCRD makes crd the installed CRD: nothing when it is, an update in place when
// inPlace and a CRD of that name is installed (a CRD change under stored objects), else delete
// and create, then wait for it to be Established and served.
func (c *client) ensureCRD(ctx context.Context, crd map[string]any, inPlace bool) error {
	if c.installed != nil && reflect.DeepEqual(c.installed, crd) {
		return nil
	}
	name := str(crd, "metadata", "name")
	body, _ := json.Marshal(crd)
	if inPlace && c.installed != nil && str(c.installed, "metadata", "name") == name {
		g := c.do(ctx, "GET", crdsPath+"/"+name, nil, "")
		if err := g.failure(); err != nil {
			return err
		}
		cur, err := decodeJSON(g.body)
		if err != nil {
			return err
		}
		upd, _ := deepCopy(crd)
		upd["metadata"].(map[string]any)["resourceVersion"] = str(cur, "metadata", "resourceVersion")
		b, _ := json.Marshal(upd)
		if err := c.do(ctx, "PUT", crdsPath+"/"+name, b, "").failure(); err != nil {
			return fmt.Errorf("updating CRD %s: %w", name, err)
		}
		c.installed = crd
		// The custom resource handler drops its serving info when its CRD informer sees the
		// change; nothing observable says when, so give it a moment.
		time.Sleep(2 * time.Second)
		return nil
	}
	if err := c.removeCRD(ctx); err != nil {
		return err
	}
	// A CRD of that name left by an earlier run of this tool.
	if g := c.do(ctx, "GET", crdsPath+"/"+name, nil, ""); g.err == nil && g.status == nil {
		c.installed = map[string]any{"metadata": map[string]any{"name": name}}
		if err := c.removeCRD(ctx); err != nil {
			return err
		}
	}
	if err := c.do(ctx, "POST", crdsPath, body, "").failure(); err != nil {
		return fmt.Errorf("creating CRD %s: %w", name, err)
	}
	c.installed = crd
	err := poll(ctx, 60*time.Second, "CRD "+name+" to be Established", func() (bool, error) {
		g := c.do(ctx, "GET", crdsPath+"/"+name, nil, "")
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
		l := c.do(ctx, "GET", list, nil, "")
		return l.err == nil && l.status == nil, nil
	})
}

// namespaces are the namespaces made so far, shared by the clients.
type namespaces struct {
	mu   sync.Mutex
	made map[string]bool
}

func (c *client) ensureNamespace(ctx context.Context, ns string) error {
	c.namespaces.mu.Lock()
	defer c.namespaces.mu.Unlock()
	if c.namespaces.made[ns] {
		return nil
	}
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, ns)
	res := c.do(ctx, "POST", "/api/v1/namespaces", []byte(body), "")
	if res.status != nil && res.status.Reason == metav1.StatusReasonAlreadyExists {
		res = result{}
	}
	if err := res.failure(); err != nil {
		return fmt.Errorf("namespace %s: %w", ns, err)
	}
	c.namespaces.made[ns] = true
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

// serve runs r against the server: its answer, and the message as sent when the canonical
// text differs from it.
func (c *client) serve(ctx context.Context, r *run) (answer, string) {
	fail := func(format string, a ...any) (answer, string) {
		return answer{Err: fmt.Sprintf(format, a...)}, ""
	}
	first := r.crd
	if r.oldCRD != nil {
		first = r.oldCRD
	}
	if err := c.ensureCRD(ctx, first, false); err != nil {
		return fail("%v", err)
	}
	nsd := namespaced(r.crd)
	reqNS := ""
	if nsd {
		reqNS = metaOf(r.v.Object).Namespace
		if reqNS == "" {
			reqNS = "default"
		}
		if err := c.ensureNamespace(ctx, reqNS); err != nil {
			return fail("%v", err)
		}
	}
	coll := resourcePath(r.crd, reqNS)
	var created []string // object URLs to delete afterwards
	defer func() {
		for _, u := range created {
			c.deleteObject(ctx, u)
		}
	}()

	if !r.isUpdate() {
		res := c.do(ctx, "POST", coll, r.v.Object, "")
		if res.err != nil {
			return fail("create: %v", res.err)
		}
		if res.status == nil {
			created = append(created, coll+"/"+metaOf(res.body).Name)
		} else if res.status.Reason == metav1.StatusReasonAlreadyExists {
			return fail("create: %s (left over from an earlier run?)", res.status.Message)
		}
		return verdict(res)
	}

	// UPDATE: the old object is created (through the create path, under the old CRD when the
	// CRD changed since), its status set when this is a status update, then the update sent.
	oldColl := coll
	if !nsd {
		oldColl = resourcePath(r.crd, "")
	} else if ns := metaOf(r.v.OldObject).Namespace; ns != "" && ns != reqNS {
		if err := c.ensureNamespace(ctx, ns); err != nil {
			return fail("%v", err)
		}
		oldColl = resourcePath(r.crd, ns)
	}
	res := c.do(ctx, "POST", oldColl, r.v.OldObject, "")
	if err := res.failure(); err != nil {
		return fail("the server refused the old object: %v", err)
	}
	stored := res.body
	oldURL := oldColl + "/" + metaOf(stored).Name
	created = append(created, oldURL)
	// The old object's status is stored as a client stores it, through /status, whatever the
	// update: a create drops it when the CRD has the status subresource.
	if hasStatusSubresource(first) {
		old, err := decodeJSON(r.v.OldObject)
		if err != nil {
			return fail("oldObject: %v", err)
		}
		if st, ok := old["status"]; ok {
			cur, _ := decodeJSON(stored)
			cur["status"] = st
			b, _ := json.Marshal(cur)
			res := c.do(ctx, "PUT", oldURL+"/status", b, "")
			if err := res.failure(); err != nil {
				return fail("the server refused the old object's status: %v", err)
			}
			stored = res.body
		}
	}
	if r.oldCRD != nil {
		if err := c.ensureCRD(ctx, r.crd, true); err != nil {
			return fail("%v", err)
		}
	}
	obj, err := decodeJSON(r.v.Object)
	if err != nil {
		return fail("object: %v", err)
	}
	md, _ := obj["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		obj["metadata"] = md
	}
	if _, ok := md["resourceVersion"]; !ok {
		md["resourceVersion"] = metaOf(stored).ResourceVersion
	}
	name, _ := md["name"].(string)
	if name == "" {
		name = metaOf(stored).Name
	}
	url := coll + "/" + name
	if r.status() {
		url += "/status"
	}
	b, _ := json.Marshal(obj)
	res = c.do(ctx, "PUT", url, b, "")
	if res.err != nil {
		return fail("update: %v", res.err)
	}
	return verdict(res)
}

// deleteObject deletes an object, removes its finalizers if it stays, and waits until it is
// gone (10 s at most).
func (c *client) deleteObject(ctx context.Context, url string) {
	res := c.do(ctx, "DELETE", url, nil, "")
	if res.isNotFound() {
		return
	}
	_ = poll(ctx, 10*time.Second, url+" to be deleted", func() (bool, error) {
		g := c.do(ctx, "GET", url, nil, "")
		if g.isNotFound() {
			return true, nil
		}
		if g.status == nil && g.err == nil {
			c.do(ctx, "PATCH", url, []byte(`{"metadata":{"finalizers":null}}`), "application/merge-patch+json")
		}
		return false, nil
	})
}

func verdict(res result) (answer, string) {
	if res.status == nil {
		return answer{Valid: true}, ""
	}
	text := canonical(*res.status)
	raw := ""
	if text != res.status.Message {
		raw = res.status.Message
	}
	return answer{Text: text}, raw
}

// canonical is the Status message with an Invalid Status's causes sorted by field, rebuilt as
// errors.NewInvalid builds it; the message itself when the causes do not rebuild it.
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

// normalize writes selfType<digits> as selfType<N> and the suffix a name generator added to
// generateName as #####.
func normalize(text, generateName string) string {
	text = selfType.ReplaceAllString(text, "selfType<N>")
	if generateName == "" {
		return text
	}
	prefix := generateName
	if len(prefix) > 58 {
		prefix = prefix[:58]
	}
	re := regexp.MustCompile(regexp.QuoteMeta(prefix) + `[a-z0-9]{5}`)
	return re.ReplaceAllString(text, prefix+"#####")
}

// ---- crd-cel and the oracle

// crdCel is crd-cel's answer through its command line, with the options the conformance
// command (tests/src/conformance.rs) gives it.
// validateJSON is `crd-cel validate -o json`'s document, as far as read here.
type validateJSON struct {
	Results []validateResult `json:"results"`
}

type validateResult struct {
	File      string         `json:"file"`
	Status    string         `json:"status"`
	Text      string         `json:"text"`
	APIStatus *metav1.Status `json:"apiStatus"`
}

// parseValidateJSON reads crd-cel's output when it exited 0 (all valid) or 1 (some invalid).
func parseValidateJSON(code int, stdout []byte) (validateJSON, bool) {
	var doc validateJSON
	ok := (code == 0 || code == 1) && json.Unmarshal(stdout, &doc) == nil
	return doc, ok
}

// answer is one result as compared: its text is crd-cel's as it prints it (the apiserver's
// order), and its apiStatus is canonicalised exactly as the server's Status is.
func (res validateResult) answer() (answer, bool) {
	switch {
	case res.Status == "valid":
		return answer{Valid: true}, true
	case res.Status == "invalid" && res.APIStatus != nil:
		return answer{Text: canonical(*res.APIStatus), Sent: res.Text}, true
	}
	return answer{}, false
}

// crdCelBatch answers the creates runs[i] (i in idx, one CRD file) with one crd-cel process:
// false, answering none, unless each object's file gives exactly one answer.
func crdCelBatch(o options, runs []*run, idx []int, scratch string) bool {
	args := []string{"validate", "--crd", filepath.Join(o.root, runs[idx[0]].CRDPath),
		"--field-validation", "warn", "--kubernetes-version", o.k8sVersion, "-o", "json"}
	files := map[string]int{}
	for _, i := range idx {
		f := filepath.Join(scratch, fmt.Sprintf("%d.json", i))
		if os.WriteFile(f, runs[i].v.Object, 0o644) != nil {
			return false
		}
		files[f] = i
		args = append(args, f)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var stdout bytes.Buffer
	cmd := exec.CommandContext(ctx, o.crdCel, args...)
	cmd.Stdout = &stdout
	code := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return false
		}
		code = ee.ExitCode()
	}
	doc, ok := parseValidateJSON(code, stdout.Bytes())
	if !ok || len(doc.Results) != len(idx) {
		return false
	}
	answers := map[int]answer{}
	for _, res := range doc.Results {
		i, known := files[res.File]
		a, ok := res.answer()
		if _, twice := answers[i]; !known || !ok || twice {
			return false
		}
		answers[i] = a
	}
	for i, a := range answers {
		runs[i].CRDCel = a
	}
	return true
}

// crdCel is crd-cel's answer to r; its files go to paths starting with scratch.
func crdCel(o options, r *run, scratch string) answer {
	args := []string{"validate", "--crd", filepath.Join(o.root, r.CRDPath),
		"--field-validation", "warn", "--kubernetes-version", o.k8sVersion, "-o", "json"}
	if r.isUpdate() {
		oldFile := scratch + "-old.json"
		if err := os.WriteFile(oldFile, r.v.OldObject, 0o644); err != nil {
			return answer{Err: err.Error()}
		}
		args = append(args, "--old", oldFile)
		if present(r.v.InitialCRDPatches) {
			kind, _ := r.kindVersion()
			crd, err := loadCRD(filepath.Join(o.root, r.CRDPath), kind)
			if err == nil {
				var b []byte
				b, _ = json.Marshal(crd)
				var p jsonpatch.Patch
				if p, err = jsonpatch.DecodePatch(r.v.InitialCRDPatches); err == nil {
					if b, err = p.Apply(b); err == nil {
						oldCRD := scratch + "-old-crd.json"
						err = os.WriteFile(oldCRD, b, 0o644)
						args = append(args, "--old-crd", oldCRD)
					}
				}
			}
			if err != nil {
				return answer{Err: "initialCRDPatches: " + err.Error()}
			}
		}
	}
	if r.status() {
		args = append(args, "--subresource", "status")
	}
	args = append(args, "-")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, o.crdCel, args...)
	cmd.Stdin = bytes.NewReader(r.v.Object)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return answer{Err: err.Error()}
		}
		code = ee.ExitCode()
	}
	if doc, ok := parseValidateJSON(code, stdout.Bytes()); ok && len(doc.Results) == 1 {
		if a, ok := doc.Results[0].answer(); ok {
			return a
		}
	}
	return answer{Err: fmt.Sprintf("exit %d: %s%s", code, strings.TrimSpace(stdout.String()), strings.TrimSpace(stderr.String()))}
}

// oracleCorpus runs `oracle corpus --json ROOT SET`: per vector and CRD path, the oracle's
// validate answer.
func oracleCorpus(o options, set string, into map[string]answer) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, o.oracle, "corpus", "--json", o.root, set)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		return fmt.Errorf("oracle corpus %s: %v: %s", set, err, stderr.String())
	}
	var doc struct {
		Results []struct {
			Set, File string
			Runs      []struct {
				CRDPath   string `json:"crdPath"`
				Valid     bool   `json:"valid"`
				Text      string `json:"text"`
				ToolError string `json:"toolError"`
			} `json:"runs"`
		} `json:"results"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		return fmt.Errorf("oracle corpus %s printed no JSON: %v", set, err)
	}
	for _, r := range doc.Results {
		for _, run := range r.Runs {
			a := answer{Valid: run.Valid, Text: run.Text, Err: run.ToolError}
			into[r.Set+"/"+r.File+"|"+run.CRDPath] = a
		}
	}
	return nil
}

// ---- the report

func same(a, b answer) (verdict, text bool) {
	if a.Err != "" || b.Err != "" {
		return false, false
	}
	verdict = a.Valid == b.Valid
	return verdict, verdict && a.Text == b.Text
}

type tally struct{ n, verdict, text, exact int }

func report(o options, runs []*run, vectorsPerSet map[string]int) error {
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	crdCelT := map[string]*tally{}
	oracleT := map[string]*tally{}
	errorsT := map[string]int{}
	for _, set := range o.sets {
		crdCelT[set], oracleT[set] = &tally{}, &tally{}
	}
	// Per vector: the same verdict (text) only when every CRD run has it.
	// exact: crd-cel's text is the server's message as sent (causes in the server's order).
	type agg struct{ cv, ct, ov, ot, exact, serverErr bool }
	byVector := map[int]*agg{}
	var vecOrder []int
	for _, r := range runs {
		a, ok := byVector[r.vecIndex]
		if !ok {
			a = &agg{true, true, true, true, true, false}
			byVector[r.vecIndex] = a
			vecOrder = append(vecOrder, r.vecIndex)
		}
		cv, ct := same(r.Server, r.CRDCel)
		ov, ot := same(r.Server, r.Oracle)
		a.cv, a.ct, a.ov, a.ot = a.cv && cv, a.ct && ct, a.ov && ov, a.ot && ot
		a.serverErr = a.serverErr || r.Server.Err != ""
		// The server's message as sent against crd-cel's as it prints it.
		sent := r.Server.Text
		if r.RawServer != "" {
			sent = r.RawServer
		}
		a.exact = a.exact && ct && (r.Server.Valid || r.CRDCel.Sent == sent)

		short := r.CRDPath
		if parts := strings.Split(r.CRDPath, "/"); len(parts) >= 3 {
			short = parts[len(parts)-2]
		}
		fmt.Fprintf(w, "%s/%s [%s]\n", r.Set, strings.TrimSuffix(r.File, ".json"), short)
		fmt.Fprintf(w, "  server:  %s\n", r.Server)
		if r.RawServer != "" {
			fmt.Fprintf(w, "           (as sent, causes in the server's order: %s)\n", r.RawServer)
		}
		if !r.Server.Valid && r.CRDCel.Sent != "" && r.CRDCel.Sent != sent {
			fmt.Fprintf(w, "  crd-cel as printed (its order): %s   <-- ORDER DIFFERS\n", r.CRDCel.Sent)
		}
		for _, side := range []struct {
			name string
			a    answer
		}{{"crd-cel", r.CRDCel}, {"oracle ", r.Oracle}} {
			if v, t := same(r.Server, side.a); v && t {
				fmt.Fprintf(w, "  %s: same\n", side.name)
			} else {
				fmt.Fprintf(w, "  %s: %s   <-- DIFFERS\n", side.name, side.a)
			}
		}
	}
	setOf := map[int]string{}
	nameOf := map[int]string{}
	for _, r := range runs {
		setOf[r.vecIndex] = r.Set
		nameOf[r.vecIndex] = r.Set + "/" + strings.TrimSuffix(r.File, ".json")
	}
	// What differs, per vector: "verdict", "text" (canonical order) or "order" (as sent).
	found := map[string]string{}
	for _, i := range vecOrder {
		switch a := byVector[i]; {
		case a.serverErr:
			found[nameOf[i]] = "server-error"
		case !a.cv:
			found[nameOf[i]] = "verdict"
		case !a.ct:
			found[nameOf[i]] = "text"
		case !a.exact:
			found[nameOf[i]] = "order"
		}
	}
	for _, i := range vecOrder {
		a, set := byVector[i], setOf[i]
		ct, ot := crdCelT[set], oracleT[set]
		ct.n++
		ot.n++
		if a.serverErr {
			errorsT[set]++
		}
		if a.cv {
			ct.verdict++
		}
		if a.ct {
			ct.text++
		}
		if a.exact {
			ct.exact++
		}
		if a.ov {
			ot.verdict++
		}
		if a.ot {
			ot.text++
		}
	}
	fmt.Fprintf(w, "\n%-22s %7s | %-42s | %-30s | %s\n", "set", "vectors", "server vs crd-cel (exact: causes unsorted)", "server vs oracle", "server errors")
	total := &tally{}
	for _, set := range o.sets {
		ct, ot := crdCelT[set], oracleT[set]
		fmt.Fprintf(w, "%-22s %7d | %-42s | %-30s | %d\n", set, ct.n,
			fmt.Sprintf("%d/%d verdict, %d/%d text, %d/%d exact", ct.verdict, ct.n, ct.text, ct.n, ct.exact, ct.n),
			fmt.Sprintf("%d/%d verdict, %d/%d text", ot.verdict, ot.n, ot.text, ot.n), errorsT[set])
		total.n += ct.n
		total.verdict += ct.verdict
		total.text += ct.text
		total.exact += ct.exact
	}
	if o.jsonOut != "" {
		b, _ := json.MarshalIndent(runs, "", " ")
		if err := os.WriteFile(o.jsonOut, b, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "e2e: texts as sent (the server's cause order, unsorted): %d/%d the same\n", total.exact, total.n)
	fmt.Fprintf(w, "e2e: server vs crd-cel: %d/%d same verdict, %d/%d same text\n", total.verdict, total.n, total.text, total.n)
	if o.known == "" {
		return nil
	}
	return checkKnown(o.known, nameOf, found)
}

// differences is a run that the known-differences file does not account for.
type differences []string

func (d differences) Error() string {
	return fmt.Sprintf("%d difference(s) not as the known-differences file lists them:\n  %s", len(d), strings.Join(d, "\n  "))
}

// checkKnown compares what differed with the known-differences file: lines `SET/VECTOR KIND
// REASON...`, `#` comments. KIND `order`: the server's order of the causes is Go map order, so
// the message as sent may or may not be crd-cel's (the canonical text must still be the same);
// any other KIND (`verdict`, `text`) must differ exactly so. Vectors not run are not checked.
func checkKnown(file string, ran map[int]string, found map[string]string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	listed := map[string]string{}
	for n, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 {
			return fmt.Errorf("%s:%d: want `SET/VECTOR KIND REASON`, got %q", file, n+1, line)
		}
		listed[f[0]] = f[1]
	}
	didRun := map[string]bool{}
	for _, name := range ran {
		didRun[name] = true
	}
	var bad differences
	for name, kind := range found {
		if want, ok := listed[name]; !ok || want != kind {
			bad = append(bad, fmt.Sprintf("%s: %s differs (listed: %q)", name, kind, listed[name]))
		}
	}
	for name, kind := range listed {
		if kind != "order" && found[name] == "" && didRun[name] {
			bad = append(bad, fmt.Sprintf("%s: listed as a %s difference, but the same now: remove it from %s", name, kind, file))
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		return bad
	}
	return nil
}
