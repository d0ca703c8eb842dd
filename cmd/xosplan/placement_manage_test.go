package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/placement"
	"github.com/xosplan/xosplan/pkg/state"
)

// TestPlacementManagedRealAPI applies examples/placement/managed to
// Debian's real Placement (python3-placement, sqlite, noauth2 on
// 127.0.0.1) and keeps it: applied, re-planned to no changes, a trait
// removed by hand found by refresh and put back by the next apply, an
// unmanaged provider imported by its name, a custom trait taken out of
// the configuration deleted only after the provider that had it dropped
// it, and destroyed without touching the imported provider.
func TestPlacementManagedRealAPI(t *testing.T) {
	url := testutil.RealPlacement(t)
	// The token comes from the environment, as placement candidates takes it.
	t.Setenv("OS_AUTH_TOKEN", "admin")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	client, err := placement.NewClient(ctx, url, placement.ClientOptions{Token: "admin"})
	if err != nil {
		t.Fatal(err)
	}
	// The storage pool another tool keeps; the stack imports it by name.
	nfs, err := client.CreateProvider(ctx, "nfs-row1", "", "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "placement", "managed", "stack.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	stack := filepath.Join(dir, "stack.yaml")
	writeFile(t, stack, string(src))
	statePath := filepath.Join(dir, "state.json")
	cli := func(want int, args ...string) string {
		t.Helper()
		args = append([]string{args[0], "--state", statePath, "--placement-url", url}, args[1:]...)
		var stdout, stderr bytes.Buffer
		code := run(ctx, append(args, stack), nil, &stdout, &stderr)
		if code != want {
			t.Fatalf("%v: exit %d, want %d\n%s\n%s", args, code, want, stdout.String(), stderr.String())
		}
		return stdout.String()
	}
	provider := func(name string) *placement.ProviderRecord {
		t.Helper()
		u, ok, err := client.FindProvider(ctx, name)
		if err != nil || !ok {
			t.Fatalf("provider %s: found %v, %v", name, ok, err)
		}
		rec, err := client.ReadProvider(ctx, u)
		if err != nil || rec == nil {
			t.Fatalf("read %s: %v", name, err)
		}
		return rec
	}

	out := cli(0, "apply", "--auto-approve")
	if !strings.Contains(out, "Apply complete! Resources: 6 added, 0 changed, 0 destroyed.") {
		t.Fatalf("apply:\n%s", out)
	}
	c1 := provider("r1-compute-1")
	if want := []string{"COMPUTE_STATUS_DISABLED", "CUSTOM_GOLD", "CUSTOM_RACK_R1", "HW_CPU_X86_AVX2"}; !slices.Equal(c1.Traits, want) {
		t.Errorf("r1-compute-1 traits %v, want %v", c1.Traits, want)
	}
	if inv := c1.Inventories["DISK_GB"]; inv.Total != 1000 || inv.Reserved != 50 || inv.StepSize != 10 || inv.MaxUnit != placement.MaxInt {
		t.Errorf("r1-compute-1 DISK_GB %+v", inv)
	}
	if want := placement.AggregateUUIDs([]string{"rack-r1"}); !slices.Equal(c1.Aggregates, want) {
		t.Errorf("r1-compute-1 aggregates %v, want %v", c1.Aggregates, want)
	}
	if fpga := provider("r1-compute-1-fpga0"); fpga.Parent != c1.UUID || fpga.Inventories["CUSTOM_FPGA_XILINX"].Total != 2 {
		t.Errorf("fpga provider %+v, want a child of %s with 2 CUSTOM_FPGA_XILINX", fpga, c1.UUID)
	}
	st := readState(t, ctx, statePath)
	if r, ok := st.Lookup("shared_storage"); !ok || r.Feedback.Attributes["uuid"] != nfs {
		t.Errorf("the imported provider records %+v, want uuid %s", r.Feedback.Attributes, nfs)
	}

	// The seed's GET /traits queries, against the service.
	traits := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run(ctx, append([]string{"placement", "traits", "--placement-url", url}, args...), nil, &stdout, &stderr); code != 0 {
			t.Fatalf("placement traits %v: exit %d: %s", args, code, stderr.String())
		}
		return stdout.String()
	}
	if got := traits("--starts-with", "CUSTOM_"); got != "CUSTOM_GOLD\nCUSTOM_RACK_R1\n" {
		t.Errorf("--starts-with CUSTOM_: %q", got)
	}
	if got := traits("--in", "CUSTOM_GOLD,HW_CPU_X86_AVX2,HW_NO_SUCH_TRAIT"); got != "CUSTOM_GOLD\nHW_CPU_X86_AVX2\n" {
		t.Errorf("--in: %q", got)
	}
	if got := traits("--associated", "true", "--starts-with", "HW_"); got != "HW_CPU_X86_AVX2\n" {
		t.Errorf("--associated true --starts-with HW_: %q", got)
	}

	if out := cli(0, "plan", "--detailed-exitcode"); !strings.Contains(out, "No changes.") {
		t.Errorf("second plan:\n%s", out)
	}

	// Drift: a trait removed by hand is found and put back.
	if _, err := client.SetProviderTraits(ctx, c1.UUID, []string{"CUSTOM_RACK_R1", "HW_CPU_X86_AVX2", "COMPUTE_STATUS_DISABLED"}); err != nil {
		t.Fatal(err)
	}
	cli(2, "refresh", "--detailed-exitcode")
	st = readState(t, ctx, statePath)
	if r, _ := st.Lookup("compute_1"); !strings.Contains(r.Feedback.Status.Message, "traits [CUSTOM_GOLD] missing") {
		t.Errorf("refresh records %+v for compute_1", r.Feedback.Status)
	}
	if out := cli(2, "plan", "--detailed-exitcode"); !strings.Contains(out, "Plan: 1 to add, 0 to change, 0 to destroy.") {
		t.Errorf("plan after drift:\n%s", out)
	}
	cli(0, "apply", "--auto-approve")
	if got := provider("r1-compute-1").Traits; !slices.Contains(got, "CUSTOM_GOLD") {
		t.Errorf("apply did not repair the traits: %v", got)
	}

	// sync does the same by itself: its health check finds the trait
	// removed and its reconcile puts it back.
	if _, err := client.SetProviderTraits(ctx, c1.UUID, []string{"CUSTOM_RACK_R1", "HW_CPU_X86_AVX2", "COMPUTE_STATUS_DISABLED"}); err != nil {
		t.Fatal(err)
	}
	log, proc := startSync(t, dir, []string{"OS_AUTH_TOKEN=admin"}, "--state", statePath, "--placement-url", url, "--health-interval", "1s")
	testutil.WaitFor(t, 60*time.Second, "sync to put CUSTOM_GOLD back on r1-compute-1", func() bool {
		return slices.Contains(provider("r1-compute-1").Traits, "CUSTOM_GOLD")
	})
	proc.terminate(t)
	if !strings.Contains(log.String(), "drift found") {
		t.Errorf("sync's log does not say it found the drift:\n%s", log.String())
	}

	// CUSTOM_GOLD leaves the configuration: r1-compute-1 drops it first,
	// then the trait is deleted.
	edited := strings.Replace(string(src), "traits: [ CUSTOM_GOLD, CUSTOM_RACK_R1,", "traits: [ CUSTOM_RACK_R1,", 1)
	edited = strings.Replace(edited, "    gold:\n      type: xosplan.nodes.placement.CustomTrait\n      properties: { name: CUSTOM_GOLD }\n", "", 1)
	writeFile(t, stack, edited)
	out = cli(2, "plan", "--detailed-exitcode")
	for _, want := range []string{`- "CUSTOM_GOLD",`, "Plan: 0 to add, 1 to change, 1 to destroy."} {
		if !strings.Contains(out, want) {
			t.Errorf("plan without CUSTOM_GOLD lacks %q:\n%s", want, out)
		}
	}
	cli(0, "apply", "--auto-approve")
	if ok, err := client.TraitExists(ctx, "CUSTOM_GOLD"); err != nil || ok {
		t.Errorf("CUSTOM_GOLD exists %v (%v) after it left the configuration", ok, err)
	}
	if r, ok := readState(t, ctx, statePath).Lookup("gold"); ok {
		t.Errorf("the state still records gold after its delete: %+v", r.Feedback)
	}

	cli(0, "destroy", "--auto-approve")
	for _, name := range []string{"r1-compute-1", "r1-compute-1-fpga0", "r1-compute-2"} {
		if _, ok, err := client.FindProvider(ctx, name); err != nil || ok {
			t.Errorf("after destroy %s exists %v (%v)", name, ok, err)
		}
	}
	if rec, err := client.ReadProvider(ctx, nfs); err != nil || rec == nil {
		t.Errorf("destroy deleted the imported provider nfs-row1 (%v)", err)
	}
}

func readState(t *testing.T, ctx context.Context, path string) *state.State {
	t.Helper()
	f, err := state.OpenFile(path, state.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
