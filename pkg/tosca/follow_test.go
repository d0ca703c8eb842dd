package tosca

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/diag"
)

// TestOneCauseGivesOneErrorCountingWhatFollows compiles the follow-on
// fixtures: each has one root cause, reported once, whose detail counts
// the problems that follow from it and are not reported.
func TestOneCauseGivesOneErrorCountingWhatFollows(t *testing.T) {
	tests := []struct {
		fixture string
		detail  string // "" when nothing follows
	}{
		// my.Other's parent, then app's property, capability, requirement,
		// interface and get_property, then other's property.
		{"follow_unknown_parent.yaml", "7 more problems follow from this."},
		// lib.Server, lib.Config, lib.Cache.
		{"follow_missing_import.yaml", "3 more problems follow from this."},
		// b's type, then the input's.
		{"follow_unknown_data_type.yaml", "2 more problems follow from this."},
		{"follow_interface_inputs_once.yaml", ""},
		// The inputs the unknown substituted node type seems to lack.
		{"follow_substitution_unknown_type.yaml", "1 more problem follows from this."},
		// The property the incomplete node type of an unassigned
		// requirement seems not to declare.
		{"follow_dangling_requirement.yaml", "1 more problem follows from this."},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			_, diags := Compile(context.Background(), filepath.Join("testdata", "errors", tt.fixture), Options{Root: rootAt(t, "testdata")})
			var errs []diag.Diagnostic
			for _, d := range diags {
				if d.Severity == diag.Error {
					errs = append(errs, d)
				}
			}
			if len(errs) != 1 {
				t.Fatalf("want one error, got %d: %v", len(errs), diags)
			}
			if errs[0].Detail != tt.detail {
				t.Errorf("detail = %q, want %q", errs[0].Detail, tt.detail)
			}
		})
	}
}

// TestMessagesNameOtherFilesRelativeToTheWorkingFolder checks that a
// message naming another file than its own (a type defined twice) names
// it relative to the working folder even when the template was given by
// its absolute path.
func TestMessagesNameOtherFilesRelativeToTheWorkingFolder(t *testing.T) {
	abs, err := filepath.Abs(filepath.Join("testdata", "errors", "type_redefined.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	_, diags := Compile(context.Background(), abs, Options{Root: rootAt(t, "testdata")})
	found := false
	for _, d := range diags {
		if d.Code != CodeTypeRedefined {
			continue
		}
		found = true
		if strings.Contains(d.Summary, abs[:len(abs)-len("type_redefined.yaml")]) || !strings.Contains(d.Summary, filepath.Join("testdata", "errors", "type_redefined")) {
			t.Errorf("summary does not name the file relative to the working folder: %s", d.Summary)
		}
	}
	if !found {
		t.Fatalf("no %s diagnostic: %v", CodeTypeRedefined, diags)
	}
}

// TestImportCycleLoadsEachFileOnce compiles files that import each other
// (and themselves): no diagnostic at all, no type defined twice.
func TestImportCycleLoadsEachFileOnce(t *testing.T) {
	_, diags := Compile(context.Background(), filepath.Join("testdata", "errors", "import_cycle_allowed.yaml"), Options{Root: rootAt(t, "testdata")})
	if len(diags) != 0 {
		t.Errorf("want no diagnostics, got %v", diags)
	}
}
