package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/placement"
	"github.com/xosplan/xosplan/pkg/state"
)

// TestPlacementRealAPI plans, applies and destroys the placement example
// through a real Placement API (--placement-url): the plan shows the same
// hosts as the embedded model, apply claims them in the service and
// records them, destroy releases them.
func TestPlacementRealAPI(t *testing.T) {
	url := testutil.RealPlacement(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client, err := placement.NewClient(ctx, url, placement.ClientOptions{Token: "admin"})
	if err != nil {
		t.Fatal(err)
	}
	example, err := filepath.Abs(filepath.Join("..", "..", "examples", "placement"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(example, "providers.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m, diags := placement.LoadProviders("providers.yaml", data)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if err := client.Push(ctx, m); err != nil {
		t.Fatal(err)
	}
	statePath := filepath.Join(t.TempDir(), "state.json")
	cli := func(args ...string) string {
		t.Helper()
		args = append([]string{args[0], "--state", statePath, "--placement-url", url, "--placement-token", "admin"}, args[1:]...)
		var stdout, stderr bytes.Buffer
		if code := run(ctx, append(args, filepath.Join(example, "stack")), nil, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, stdout.String(), stderr.String())
		}
		return stdout.String()
	}
	used := func(provider, class string) int64 {
		t.Helper()
		res, err := client.Candidates(ctx, placement.Query{Groups: []placement.RequestGroup{{Resources: map[string]int64{"VCPU": 1}}}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Summaries[provider].Resources[class].Used
	}

	out := cli("plan")
	for _, want := range []string{
		"  batch    -> rack-b-arm (DISK_GB=100, MEMORY_MB=16384, VCPU=16)",
		"  db-host  -> rack-a-2 (DISK_GB=500, MEMORY_MB=32768, VCPU=8)",
		"  web-1    -> rack-a-1 (DISK_GB=40, MEMORY_MB=8192, VCPU=4)",
		"  web-2    -> rack-a-2 (DISK_GB=40, MEMORY_MB=8192, VCPU=4)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	if got := used("rack-a-2", "VCPU"); got != 0 {
		t.Fatalf("plan claimed %d VCPU in the service; a plan only reads", got)
	}

	cli("apply", "--auto-approve")
	if got := used("rack-a-2", "VCPU"); got != 12 {
		t.Errorf("after apply rack-a-2 uses %d VCPU, want 12 (db-host 8 + web-2 4)", got)
	}
	f, err := state.OpenFile(statePath, state.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := st.Lookup("db-host"); !ok || len(r.Feedback.Allocations) != 1 || r.Feedback.Allocations[0].Provider != "rack-a-2" {
		t.Errorf("state records %+v for db-host", r)
	}
	if out := cli("plan"); !strings.Contains(out, "(kept)") {
		t.Errorf("second plan does not keep the placements:\n%s", out)
	}

	cli("destroy", "--auto-approve")
	for _, p := range []string{"rack-a-1", "rack-a-2", "rack-b-arm"} {
		if got := used(p, "VCPU"); got != 0 {
			t.Errorf("after destroy %s still uses %d VCPU", p, got)
		}
	}
}
