package main

// oracle corpus: agreement of the oracle with the recorded verdicts of ../shared/corpus/vectors.

import (
	"encoding/json"
	"flag"
	"fmt"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type corpusVector struct {
	Name             string          `json:"name"`
	CRDPaths         []string        `json:"crdPaths"`
	Kind             string          `json:"kind"`
	Version          string          `json:"version"`
	Operation        string          `json:"operation"`
	Subresource      *string         `json:"subresource"`
	Object           json.RawMessage `json:"object"`
	OldObject        json.RawMessage `json:"oldObject"`
	Expect           string          `json:"expect"`
	ErrorsContain    []string        `json:"errorsContain"`
	ErrorsContainAny []string        `json:"errorsContainAny"`
	// JSON Patch (RFC 6902) operations that made the CRD the old object was created under
	// (a test of ratcheting across a CRD change).
	InitialCRDPatches json.RawMessage `json:"initialCRDPatches"`
}

type corpusRun struct {
	CRDPath  string   `json:"crdPath"`
	Valid    bool     `json:"valid"`
	Text     string   `json:"text"`
	Missing  []string `json:"missing,omitempty"`
	ToolFail string   `json:"toolError,omitempty"`
}

type corpusResult struct {
	Set          string      `json:"set"`
	File         string      `json:"file"`
	Name         string      `json:"name"`
	Expect       string      `json:"expect"`
	VerdictAgree bool        `json:"verdictAgree"`
	TextAgree    bool        `json:"textAgree"`
	Runs         []corpusRun `json:"runs"`
}

type setSummary struct {
	Set          string `json:"set"`
	Vectors      int    `json:"vectors"`
	Runs         int    `json:"runs"`
	VerdictAgree int    `json:"verdictAgree"`
	TextAgree    int    `json:"textAgree"`
	FullAgree    int    `json:"fullAgree"`
}

// containsAllowingWording checks s, and s with the pre-1.32 "longer"/"more" wording swapped.
func containsAllowingWording(text, s string) bool {
	return strings.Contains(text, s) ||
		strings.Contains(text, strings.ReplaceAll(s, "more", "longer")) ||
		strings.Contains(text, strings.ReplaceAll(s, "longer", "more"))
}

type serverKey struct{ path, kind, version string }

func cmdCorpus(args []string) int {
	fs := flag.NewFlagSet("corpus", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print every result as JSON")
	details := fs.Bool("details", false, "print each disagreement")
	if err := fs.Parse(reorderFlags(args)); err != nil {
		return 2
	}
	if fs.NArg() < 2 {
		fmt.Fprintln(os.Stderr, "usage: oracle corpus [--json] [--details] CORPUS_DIR SET...")
		return 2
	}
	root := fs.Arg(0)
	servers := map[serverKey]*crServer{}
	serverErr := map[serverKey]error{}
	var all []corpusResult
	var sums []setSummary
	for _, set := range fs.Args()[1:] {
		files, _ := filepath.Glob(filepath.Join(root, "vectors", set, "*.json"))
		sort.Strings(files)
		sum := setSummary{Set: set}
		for _, f := range files {
			if filepath.Base(f) == "_index.json" {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				fmt.Fprintln(os.Stderr, "oracle:", err)
				return 2
			}
			var v corpusVector
			if err := json.Unmarshal(data, &v); err != nil {
				fmt.Fprintln(os.Stderr, "oracle:", f, err)
				return 2
			}
			r := corpusResult{Set: set, File: filepath.Base(f), Name: v.Name, Expect: v.Expect, VerdictAgree: true, TextAgree: true}
			_, objKind := kindOf(v.Object)
			kind := v.Kind
			if kind == "" {
				kind = objKind
			}
			for _, cp := range v.CRDPaths {
				run := corpusRun{CRDPath: cp}
				key := serverKey{cp, kind, versionFor(v.Object, v.Version)}
				srv, ok := servers[key]
				if !ok && serverErr[key] == nil {
					crd, err := loadCRD(filepath.Join(root, cp), kind)
					if err == nil {
						srv, err = newCRServer(crd, key.version)
					}
					servers[key], serverErr[key] = srv, err
				}
				if srv == nil {
					run.ToolFail = serverErr[key].Error()
					r.VerdictAgree, r.TextAgree = false, false
					r.Runs = append(r.Runs, run)
					continue
				}
				o := validateOptions{Namespace: "default", FieldValidation: "Warn"}
				if v.Subresource != nil {
					o.Subresource = *v.Subresource
				}
				if strings.EqualFold(v.Operation, "UPDATE") && present(v.OldObject) && string(v.OldObject) != "null" {
					o.Old = v.OldObject
					if present(v.InitialCRDPatches) && string(v.InitialCRDPatches) != "null" {
						oldSrv, err := patchedServer(filepath.Join(root, cp), kind, v.InitialCRDPatches, key.version)
						if err != nil {
							run.ToolFail = "initialCRDPatches: " + err.Error()
							r.VerdictAgree, r.TextAgree = false, false
							r.Runs = append(r.Runs, run)
							continue
						}
						o.OldServer = oldSrv
					}
				}
				res := srv.validate(v.Object, o)
				run.Valid, run.Text = res.Valid, res.Text
				if run.Valid != (v.Expect == "valid") {
					r.VerdictAgree = false
				}
				for _, s := range v.ErrorsContain {
					if !containsAllowingWording(res.Text, s) {
						run.Missing = append(run.Missing, s)
					}
				}
				if len(v.ErrorsContainAny) > 0 {
					anyFound := false
					for _, s := range v.ErrorsContainAny {
						anyFound = anyFound || containsAllowingWording(res.Text, s)
					}
					if !anyFound {
						run.Missing = append(run.Missing, "any of "+strings.Join(v.ErrorsContainAny, " | "))
					}
				}
				if len(run.Missing) > 0 {
					r.TextAgree = false
				}
				r.Runs = append(r.Runs, run)
				sum.Runs++
			}
			sum.Vectors++
			if r.VerdictAgree {
				sum.VerdictAgree++
			}
			if r.TextAgree {
				sum.TextAgree++
			}
			if r.VerdictAgree && r.TextAgree {
				sum.FullAgree++
			}
			all = append(all, r)
		}
		sums = append(sums, sum)
	}
	if *asJSON {
		fmt.Println(string(mustJSON(map[string]interface{}{"summary": sums, "results": all})))
	} else {
		fmt.Printf("%-22s %8s %6s %14s %14s %14s\n", "set", "vectors", "runs", "verdict", "errorsContain", "both")
		for _, s := range sums {
			fmt.Printf("%-22s %8d %6d %14s %14s %14s\n", s.Set, s.Vectors, s.Runs,
				ratio(s.VerdictAgree, s.Vectors), ratio(s.TextAgree, s.Vectors), ratio(s.FullAgree, s.Vectors))
		}
		if *details {
			for _, r := range all {
				if r.VerdictAgree && r.TextAgree {
					continue
				}
				fmt.Printf("\nDISAGREE %s/%s (%s), expected %s\n", r.Set, r.File, r.Name, r.Expect)
				for _, run := range r.Runs {
					if run.ToolFail != "" {
						fmt.Printf("  %s: oracle error: %s\n", run.CRDPath, run.ToolFail)
						continue
					}
					fmt.Printf("  %s: oracle valid=%v missing=%q\n    text: %s\n", run.CRDPath, run.Valid, run.Missing, run.Text)
				}
			}
		}
	}
	for _, s := range sums {
		if s.FullAgree != s.Vectors {
			return 1
		}
	}
	return 0
}

func ratio(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d %5.1f%%", a, b, 100*float64(a)/float64(b))
}

// patchedServer is the server of the CRD in path with the JSON Patch applied: the CRD an old
// object was created under.
func patchedServer(path, kind string, patch json.RawMessage, version string) (*crServer, error) {
	crd, err := loadCRD(path, kind)
	if err != nil {
		return nil, err
	}
	doc, err := json.Marshal(crd)
	if err != nil {
		return nil, err
	}
	p, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return nil, err
	}
	if doc, err = p.Apply(doc); err != nil {
		return nil, err
	}
	patched, err := decodeCRDV1(doc)
	if err != nil {
		return nil, err
	}
	return newCRServer(patched, version)
}
