package tosca

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/tosca/sol001"
)

// TestTackerPackageWithoutSOL001FilesValidates compiles a Tacker-style VNF
// package whose files import etsi_nfv_sol001_common_types.yaml and
// etsi_nfv_sol001_vnfd_types.yaml without shipping them: the embedded
// 2.6.1 files stand in, with no diagnostic at all.
func TestTackerPackageWithoutSOL001FilesValidates(t *testing.T) {
	dir := filepath.Join("testdata", "sol001", "tacker_package", "Definitions")
	for _, f := range []string{"vnf_top.vnfd.yaml", "vnf_df_simple.yaml", "vnf_types.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, "etsi_nfv_sol001_common_types.yaml")); err == nil {
			t.Fatal("the fixture must not ship the SOL001 files")
		}
		_, diags := Compile(context.Background(), filepath.Join(dir, f), Options{})
		for _, d := range diags {
			t.Errorf("%s: %s", f, d.Error())
		}
	}
}

// TestSOL001URLImportIsEmbedded imports the VNFD types by each spelling of
// their forge URL: none touches the network or is reported, and a URL of a
// version that is not embedded stays a network import.
func TestSOL001URLImportIsEmbedded(t *testing.T) {
	tests := []struct {
		url, code string
	}{
		{"https://forge.etsi.org/rep/nfv/SOL001/raw/v2.6.1/etsi_nfv_sol001_vnfd_types.yaml", ""},
		{"https://forge.etsi.org/rep/nfv/SOL001/-/raw/v2.7.1/etsi_nfv_sol001_vnfd_types.yaml", ""},
		{"http://forge.etsi.org/rep/nfv/SOL001/raw/v2.8.1/etsi_nfv_sol001_vnfd_types.yaml", ""},
		{"https://forge.etsi.org/rep/nfv/SOL001/v3.3.1/etsi_nfv_sol001_vnfd_types.yaml", ""},
		{"https://forge.etsi.org/rep/nfv/SOL001/raw/v4.4.1/etsi_nfv_sol001_nsd_types.yaml", ""},
		{"https://forge.etsi.org/rep/nfv/SOL001/raw/v4.5.1/etsi_nfv_sol001_vnfd_types.yaml", CodeNetworkImport},
		{"https://forge.etsi.org/rep/nfv/SOL001/raw/v2.6.1/etsi_nfv_sol001_vnfd_types.yaml?inline=false", CodeNetworkImport},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			path := writeTemplate(t, "tosca_simple_yaml_1_2", "  - "+tt.url+"\n")
			_, diags := Compile(context.Background(), path, Options{})
			if tt.code == "" {
				for _, d := range diags {
					t.Errorf("unexpected %s", d.Error())
				}
				return
			}
			if !hasCode(diags, tt.code, diag.Error) {
				t.Errorf("want %s, got %v", tt.code, diags)
			}
		})
	}
}

// TestBareSOL001NameResolvesToImpliedVersion checks which version a bare
// file name gets, through a type only some versions define: VipCp and
// Abstract.SecurityGroupRule are new in 2.7.1, Vdu.OsContainer in 4.2.1.
func TestBareSOL001NameResolvesToImpliedVersion(t *testing.T) {
	const common, vnfd = "  - etsi_nfv_sol001_common_types.yaml\n", "  - etsi_nfv_sol001_vnfd_types.yaml\n"
	url := func(v, kind string) string {
		return "  - https://forge.etsi.org/rep/nfv/SOL001/raw/v" + v + "/etsi_nfv_sol001_" + kind + "_types.yaml\n"
	}
	tests := []struct {
		name, version, imports, nodeType string
		wantUnknown                      bool
	}{
		{"1.2 defaults to 2.6.1", "tosca_simple_yaml_1_2", common + vnfd, "tosca.nodes.nfv.VipCp", true},
		{"a URL in the same file names 2.7.1", "tosca_simple_yaml_1_2", url("2.7.1", "common") + vnfd, "tosca.nodes.nfv.VipCp", false},
		{"a URL after the bare name counts too", "tosca_simple_yaml_1_2", vnfd + url("2.7.1", "common"), "tosca.nodes.nfv.VipCp", false},
		{"1.3 defaults to the newest", "tosca_simple_yaml_1_3", common + vnfd, "tosca.nodes.nfv.Vdu.OsContainer", false},
		{"a URL of 3.3.1 wins over the 1.3 default", "tosca_simple_yaml_1_3", url("3.3.1", "common") + vnfd, "tosca.nodes.nfv.Vdu.OsContainer", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemplate(t, tt.version, tt.imports+"topology_template:\n  node_templates:\n    n:\n      type: "+tt.nodeType+"\n")
			_, diags := Compile(context.Background(), path, Options{})
			if got := hasCode(diags, CodeUnknownType, diag.Error); got != tt.wantUnknown {
				t.Errorf("unknown type reported: %v, want %v; %v", got, tt.wantUnknown, diags)
			}
			for _, d := range diags {
				if d.Code == CodeImportNotFound || d.Code == CodeNetworkImport || d.Code == CodeTypeRedefined {
					t.Errorf("unexpected %s", d.Error())
				}
			}
		})
	}
}

// TestPackageCopyOfSOL001FileIsUsed puts a copy of the 2.7.1 common types
// beside a template that imports both files by bare name: the copy on disk
// is read, the VNFD types (not on disk) are 2.7.1's because the copy says
// so in its metadata, and their URL import of the common types is the
// same copy, so no type is defined twice.
func TestPackageCopyOfSOL001FileIsUsed(t *testing.T) {
	_, data, ok := sol001.LookupFile("etsi_nfv_sol001_common_types.yaml", "2.7.1")
	if !ok {
		t.Fatal("2.7.1 common types not embedded")
	}
	path := writeTemplate(t, "tosca_simple_yaml_1_2",
		"  - etsi_nfv_sol001_common_types.yaml\n  - etsi_nfv_sol001_vnfd_types.yaml\n"+
			"topology_template:\n  node_templates:\n    n:\n      type: tosca.nodes.nfv.VipCp\n      properties: { layer_protocols: [ ipv4 ], vip_function: high_availability }\n")
	copyPath := filepath.Join(filepath.Dir(path), "etsi_nfv_sol001_common_types.yaml")
	if err := os.WriteFile(copyPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	_, diags := Compile(context.Background(), path, Options{})
	for _, d := range diags {
		if d.Code != CodeUnsatisfied && d.Code != CodeOccurrences {
			t.Errorf("unexpected %s", d.Error())
		}
	}
}

// TestSOL001FileBesideImporterWins checks that a file of the standard's
// name beside the importer is read instead of the embedded one, as any
// import is.
func TestSOL001FileBesideImporterWins(t *testing.T) {
	path := writeTemplate(t, "tosca_simple_yaml_1_2",
		"  - etsi_nfv_sol001_vnfd_types.yaml\ntopology_template:\n  node_templates:\n    n:\n      type: local.Marker\n")
	local := "tosca_definitions_version: tosca_simple_yaml_1_2\nnode_types:\n  local.Marker:\n    derived_from: tosca.nodes.Root\n"
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), "etsi_nfv_sol001_vnfd_types.yaml"), []byte(local), 0o600); err != nil {
		t.Fatal(err)
	}
	_, diags := Compile(context.Background(), path, Options{})
	for _, d := range diags {
		t.Errorf("unexpected %s", d.Error())
	}
}

// TestEmbeddedSOL001FilesCompile imports all four files of every embedded
// version by URL: the only diagnostics are the type redefinitions 2.6.1
// makes itself (its VNFD, NSD and PNFD files each define some of the same
// policy and group types).
func TestEmbeddedSOL001FilesCompile(t *testing.T) {
	for _, v := range sol001.Versions() {
		t.Run(v, func(t *testing.T) {
			tv := "tosca_simple_yaml_1_3"
			if strings.HasPrefix(v, "2.") {
				tv = "tosca_simple_yaml_1_2"
			}
			var imports string
			for _, k := range []string{"common", "vnfd", "pnfd", "nsd"} {
				imports += "  - https://forge.etsi.org/rep/nfv/SOL001/raw/v" + v + "/etsi_nfv_sol001_" + k + "_types.yaml\n"
			}
			_, diags := Compile(context.Background(), writeTemplate(t, tv, imports), Options{})
			for _, d := range diags {
				if v == "2.6.1" && d.Code == CodeTypeRedefined {
					continue
				}
				t.Errorf("unexpected %s", d.Error())
			}
		})
	}
}

// writeTemplate writes a template with the given imports list entries (and
// anything after them) to a fresh folder and returns its path.
func writeTemplate(t *testing.T, version, imports string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "main.yaml")
	text := "tosca_definitions_version: " + version + "\nimports:\n" + imports
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
