package main

import (
	"bytes"
	"context"
	"fmt"

	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// enactedState records every resource of g as applied successfully, with
// the spec of every hundredth one different (an older label), so that a
// plan finds 1% to update.
func enactedState(g *graph.Graph) *state.State {
	st := &state.State{Version: state.FormatVersion, Serial: 1, Lineage: "bench-lineage"}
	// One pass over the edges: Graph.Dependencies scans them all per call.
	depsOf := map[string][]string{}
	for _, e := range g.Edges() {
		depsOf[e.Source] = append(depsOf[e.Source], e.Target)
	}
	for i, r := range g.Resources() {
		spec := r.Spec
		if i%100 == 0 {
			spec = make(map[string]graph.Value, len(r.Spec))
			for k, v := range r.Spec {
				spec[k] = v
			}
			spec["properties"] = map[string]graph.Value{"label": "old", "port": int64(1)}
		}
		deps := slices.Compact(depsOf[r.Address])
		st.Resources = append(st.Resources, state.Resource{Address: r.Address, Type: r.Type, Management: r.Management,
			Driver: r.Driver, Dependencies: deps, Spec: spec, Sensitive: r.Sensitive,
			Feedback: state.Feedback{BackendCode: state.BackendOK, Status: state.Status{Active: true}}})
	}
	return st
}

// BenchmarkPlanCommand runs the whole `xosplan plan` (load, compile, read
// state, diff, render text, and with outputs=all also the plan file, the
// JSON plan and the markdown) on generated templates of n nodes against a
// state of the same n nodes where 1% changed.
func BenchmarkPlanCommand(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			path := filepath.Join(dir, "bench.yaml")
			if err := os.WriteFile(path, generateTemplate(n), 0o644); err != nil {
				b.Fatal(err)
			}
			res := config.Load(context.Background(), []string{path}, config.Options{})
			g, _, diags := res.Merge()
			if diags = diags.Extend(res.Diags); diags.HasErrors() {
				b.Fatal(diags.Err())
			}
			data, err := state.Encode(enactedState(g))
			if err != nil {
				b.Fatal(err)
			}
			statePath := filepath.Join(dir, "state.json")
			if err := os.WriteFile(statePath, data, 0o644); err != nil {
				b.Fatal(err)
			}
			for _, outputs := range []string{"text", "all"} {
				args := []string{"plan", "--state", statePath, path}
				if outputs == "all" {
					args = append(args, "--out", filepath.Join(dir, "plan.bin"), "--json-out", filepath.Join(dir, "plan.json"),
						"--markdown-out", filepath.Join(dir, "plan.md"))
				}
				b.Run("outputs="+outputs, func(b *testing.B) {
					var stdout, stderr bytes.Buffer
					b.ReportAllocs()
					for b.Loop() {
						stdout.Reset()
						if code := run(context.Background(), args, nil, &stdout, &stderr); code != 0 {
							b.Fatalf("exit %d: %s", code, stderr.String())
						}
					}
					want := fmt.Sprintf("Plan: 0 to add, %d to change, 0 to destroy.", (n+99)/100)
					if !bytes.Contains(stdout.Bytes(), []byte(want)) {
						b.Fatalf("want %q in:\n%s", want, tail(stdout.String()))
					}
				})
			}
		})
	}
}

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}
