package placement

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
)

// TestLoadProviders checks every fixture under testdata/load: each error
// diagnostic must sit on a line marked "# ERROR: <substring>" whose text it
// contains, and every marked line must get an error.
func TestLoadProviders(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "load", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want := testutil.ErrorLines(data)
			_, diags := LoadProviders(file, data)
			got := map[int][]string{}
			for _, d := range diags {
				if d.Severity.String() != "error" {
					continue
				}
				if d.Range.File != file || d.Range.Start.Line == 0 {
					t.Errorf("diagnostic without a position: %v", d)
				}
				got[d.Range.Start.Line] = append(got[d.Range.Start.Line], d.Summary)
				sub, ok := want[d.Range.Start.Line]
				if !ok {
					t.Errorf("unexpected error %v", d)
				} else if !strings.Contains(d.Summary, sub) {
					t.Errorf("line %d: %q does not contain %q", d.Range.Start.Line, d.Summary, sub)
				}
			}
			for line, sub := range want {
				if len(got[line]) == 0 {
					t.Errorf("line %d: expected an error containing %q", line, sub)
				}
			}
		})
	}
}

func TestLoadProvidersValid(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "load", "valid.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m, diags := LoadProviders("valid.yaml", data)
	if len(diags) > 0 {
		t.Fatal(diags.Err())
	}
	ps := m.Providers()
	if len(ps) != 2 || ps[0].Name != "cn1" || ps[1].Parent != "cn1" || ps[0].UUID == "" {
		t.Fatalf("providers %+v", ps)
	}
	if inv := ps[0].Inventories["MEMORY_MB"]; inv != DefaultInventory(4096) {
		t.Errorf("shorthand inventory %+v, want REST defaults", inv)
	}
	if ps[0].Usages["MEMORY_MB"] != 1024 {
		t.Errorf("usages %v", ps[0].Usages)
	}
	q, err := ParseQuery("resources=VCPU:2,MEMORY_MB:3072,CUSTOM_MAGIC:1&required=CUSTOM_RACK_A&member_of=agg1", Latest())
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Candidates(context.Background(), q)
	if err != nil || len(res.Requests) != 1 {
		t.Fatalf("candidates %v, err %v", res, err)
	}
	q.Groups[0].Resources["MEMORY_MB"] = 3073
	if res, _ := m.Candidates(context.Background(), q); len(res.Requests) != 0 {
		t.Errorf("usage from the file is not counted: %d candidates", len(res.Requests))
	}
}

func TestDemoProviders(t *testing.T) {
	m, diags := LoadProviders("demo.yaml", DemoProviders())
	if len(diags) > 0 {
		t.Fatal(diags.Err())
	}
	q, err := ParseQuery("resources=VCPU:2,MEMORY_MB:4096,DISK_GB:20&required=HW_ARCH_X86_64&required=!COMPUTE_STATUS_DISABLED", Latest())
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Candidates(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Requests {
		got = append(got, requestKey(r, false))
	}
	want := []string{
		"compute-2{MEMORY_MB:4096,VCPU:2,}nfs-rack1{DISK_GB:20,}",
		"compute-3{DISK_GB:20,MEMORY_MB:4096,VCPU:2,}",
		"gpu-1{DISK_GB:20,MEMORY_MB:4096,VCPU:2,}",
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("demo candidates\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
