package main

// oracle bench: the apiserver's validation of one custom resource CREATE (UPDATE with -old),
// timed in process. The CR server (structural schema, schema validators, CEL validators: what
// the CR handler caches per CRD version) is built once; each iteration is what one request
// costs: decode the JSON body, prune, default (decode in validate.go), the create/update
// handlers' and the store's metadata handling (request.go) and rest.BeforeCreate /
// rest.BeforeUpdate with the CR strategy (ObjectMeta, OpenAPI schema, list types, CEL), then the
// error's text. An update decodes the old object too, as the store decodes it when it reads it
// back. It is validate.go's validate without the oracle's own work for printing (the recording
// strategy, recomputing ObjectMeta errors, sorting and rendering errors): its verdict is checked
// against validate's before timing.

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/warning"
)

// benchCase is one request to time.
type benchCase struct {
	name string
	srv  *crServer
	obj  []byte
	o    validateOptions
}

// request is one request through the apiserver's path: its verdict, and the text of its error
// (the Status message the apiserver answers with), empty when valid.
func (c *benchCase) request() (bool, string) {
	srv, o := c.srv, c.o
	u, unknown, err := srv.decode(c.obj)
	if err != nil {
		return false, srv.decodeError(c.obj, err).Error()
	}
	rec := &plainRecorder{}
	if !strings.EqualFold(o.FieldValidation, "ignore") {
		for _, p := range unknown {
			rec.AddWarning("", fmt.Sprintf("unknown field %q", p))
		}
	}
	reqNS := srv.requestNamespace(u.GetNamespace(), o.Namespace)
	ctx := warning.WithWarningRecorder(genericapirequest.WithNamespace(context.Background(), reqNS), rec)
	var verr error
	if o.Old == nil {
		if err := srv.prepareCreate(u, reqNS); err != nil {
			return false, err.Error()
		}
		verr = rest.BeforeCreate(srv.strategy, ctx, u)
		if verr == nil {
			verr = srv.storeCreate(u)
		}
	} else {
		var old *unstructured.Unstructured
		if old, _, err = srv.decode(o.Old); err != nil {
			return false, err.Error()
		}
		srv.asStored(old, u, reqNS)
		var strategy rest.RESTUpdateStrategy = srv.strategy
		if o.Subresource == "status" {
			strategy = srv.status
		}
		if err := srv.prepareUpdate(u, old, reqNS, o.Put); err != nil {
			return false, err.Error()
		}
		verr = rest.BeforeUpdate(strategy, ctx, u, old)
	}
	if verr != nil {
		return false, verr.Error()
	}
	return true, ""
}

// plainRecorder keeps warnings as the apiserver's recorder does, without the oracle's
// normalization for printing (warningRecorder).
type plainRecorder struct{ warnings []string }

func (r *plainRecorder) AddWarning(_, text string) { r.warnings = append(r.warnings, text) }

// timeCase runs c.request n times (n <= 0: calibrated) and returns nanoseconds per request.
// The calibrated loop is the one benches/manifest.rs runs: warm up for 30 ms, then five batches
// of about 20 ms each; the median batch.
func timeCase(c *benchCase, n int) float64 {
	if n > 0 {
		start := time.Now()
		for i := 0; i < n; i++ {
			c.request()
		}
		return float64(time.Since(start).Nanoseconds()) / float64(n)
	}
	const warmup, batch = 30 * time.Millisecond, 20 * time.Millisecond
	iters := 0
	start := time.Now()
	for time.Since(start) < warmup || iters < 3 {
		c.request()
		iters++
	}
	per := float64(time.Since(start).Nanoseconds()) / float64(iters)
	count := int(float64(batch.Nanoseconds())/per) + 1
	samples := make([]float64, 0, 5)
	for b := 0; b < 5; b++ {
		start := time.Now()
		for i := 0; i < count; i++ {
			c.request()
		}
		samples = append(samples, float64(time.Since(start).Nanoseconds())/float64(count))
	}
	sort.Float64s(samples)
	return samples[len(samples)/2]
}

// newBenchCase loads one request: the CRD document serving the object's kind, the object and
// the old object (JSON or YAML files, read as JSON bodies) and the subresource.
func newBenchCase(name, crdPath, objPath, oldPath, subresource string, servers map[serverKey]*crServer) (*benchCase, error) {
	obj, err := readSingleDocument(objPath)
	if err != nil {
		return nil, err
	}
	_, kind := kindOf(obj)
	key := serverKey{crdPath, kind, versionFor(obj, "")}
	srv := servers[key]
	if srv == nil {
		crd, err := loadCRD(crdPath, kind)
		if err != nil {
			return nil, err
		}
		if srv, err = newCRServer(crd, key.version); err != nil {
			return nil, err
		}
		servers[key] = srv
	}
	c := &benchCase{name: name, srv: srv, obj: obj, o: validateOptions{Namespace: "default", FieldValidation: "Warn", Subresource: subresource}}
	if oldPath != "" {
		if c.o.Old, err = readSingleDocument(oldPath); err != nil {
			return nil, err
		}
	}
	if subresource != "" && (c.o.Old == nil || subresource != "status" || srv.status == nil) {
		return nil, fmt.Errorf("%s: only an update of the status subresource of a CRD that has one is timed", name)
	}
	return c, nil
}

// verdict checks that the timed path answers as the oracle's validate does, and returns it.
func (c *benchCase) verdict() (string, error) {
	want := c.srv.validate(c.obj, c.o)
	got, text := c.request()
	if got != want.Valid {
		return "", fmt.Errorf("%s: the timed path says valid=%v (%s), validate says valid=%v (%s)", c.name, got, text, want.Valid, want.Text)
	}
	if got {
		return "valid", nil
	}
	return "invalid", nil
}

// cmdBench: oracle bench -crd CRD [-old OLD] [-subresource status] [-n N] OBJECT, or
// oracle bench -list FILE, whose lines are NAME<TAB>CRD<TAB>OBJECT[<TAB>OLD[<TAB>SUBRESOURCE]]
// ("-" for none), one line "NAME VERDICT NS ns/op" each.
func cmdBench(args []string) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	crdPath := fs.String("crd", "", "CRD manifest (multi-document streams are searched for the object's kind)")
	oldPath := fs.String("old", "", "old object: time an UPDATE")
	subresource := fs.String("subresource", "", "\"status\" for an update of the status subresource")
	n := fs.Int("n", 0, "iterations (0: a calibrated loop, the median of five batches of about 20 ms)")
	list := fs.String("list", "", "file of requests to time, one a line: NAME<TAB>CRD<TAB>OBJECT[<TAB>OLD[<TAB>SUBRESOURCE]]")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the timed loops to this file (go tool pprof)")
	if err := fs.Parse(reorderFlags(args)); err != nil {
		return 2
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			return 2
		}
		defer pprof.StopCPUProfile()
	}
	servers := map[serverKey]*crServer{}
	if *list != "" {
		if fs.NArg() != 0 || *crdPath != "" {
			fmt.Fprintln(os.Stderr, "usage: oracle bench -list FILE [-n N]")
			return 2
		}
		return benchList(*list, *n, servers)
	}
	if *crdPath == "" || fs.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: oracle bench -crd CRD [-old OLD] [-subresource status] [-n N] OBJECT | oracle bench -list FILE [-n N]")
		return 2
	}
	c, err := newBenchCase(fs.Arg(0), *crdPath, fs.Arg(0), *oldPath, *subresource, servers)
	if err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		return 2
	}
	verdict, ns, err := measure(c, *n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		return 2
	}
	fmt.Printf("verdict: %s\n", verdict)
	fmt.Printf("%.0f ns/op\n", ns)
	return 0
}

// measure checks c's verdict against oracle validate's, then times it.
func measure(c *benchCase, n int) (string, float64, error) {
	verdict, err := c.verdict()
	if err != nil {
		return "", 0, err
	}
	return verdict, timeCase(c, n), nil
}

func benchList(path string, n int, servers map[serverKey]*crServer) int {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		return 2
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		for len(fields) < 5 {
			fields = append(fields, "-")
		}
		for i := range fields {
			if fields[i] == "-" {
				fields[i] = ""
			}
		}
		c, err := newBenchCase(fields[0], fields[1], fields[2], fields[3], fields[4], servers)
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			return 2
		}
		verdict, ns, err := measure(c, n)
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			return 2
		}
		fmt.Printf("%s %s %.0f ns/op\n", c.name, verdict, ns)
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		return 2
	}
	return 0
}
