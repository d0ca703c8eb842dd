package tosca

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// slowTemplate2 is a valid 2.0 template whose compile takes about a
// second (several under -race) within every limit: each of the 10,000
// representations of a checks a default list of 390 integers its type
// gives, close to the value budget (internal/tosca2's maxValueSteps).
func slowTemplate2() []byte {
	entries := make([]string, 390)
	for i := range entries {
		entries[i] = core.Itoa(int64(i))
	}
	return fmt.Appendf(nil, `tosca_definitions_version: tosca_2_0
node_types:
  T:
    properties: { p: { type: list, entry_schema: integer, default: [ %s ] } }
service_template:
  node_templates:
    a: { type: T, count: 10000 }
`, strings.Join(entries, ", "))
}

// compileCanceled compiles src and cancels the context with cause after
// wait, and returns what Compile returned, failing the test when that
// takes longer than a deadline far above what a compile that honours its
// context needs (the test asserts no speed).
func compileCanceled(t *testing.T, src []byte, wait time.Duration, cause error) (*graph.Graph, diag.Diagnostics) {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	done := compileInBackground(ctx, writeSource(t, src))
	select {
	case r := <-done:
		t.Fatalf("the compile ended before it was canceled (%d diagnostics): the template is too small to test", len(r.diags))
	case <-time.After(wait):
	}
	cancel(cause)
	canceled := time.Now()
	select {
	case r := <-done:
		t.Logf("returned %v after the cancel", time.Since(canceled).Round(time.Millisecond))
		return r.g, r.diags
	case <-time.After(30 * time.Second):
		t.Fatalf("the compile did not return within 30 s of its cancel")
		return nil, nil
	}
}

// TestCompileStopsWhenCanceled checks that a compile canceled while it
// works returns soon, with no graph and one tosca.canceled error that
// gives the cause, and none of the problems the work cut short might
// have caused: in a 2.0 template while the representations of a template
// with count are evaluated, and in a 1.x template of 50,000 node
// templates.
func TestCompileStopsWhenCanceled(t *testing.T) {
	interrupted := errors.New("interrupted")
	cases := []struct {
		name string
		src  []byte
		wait time.Duration
	}{
		{"2.0 representations", slowTemplate2(), 30 * time.Millisecond},
		{"1.x", genTemplate(50_000), 100 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, diags := compileCanceled(t, tc.src, tc.wait, interrupted)
			if g != nil {
				t.Errorf("a canceled compile returned a graph")
			}
			if len(diags) != 1 || diags[0].Code != CodeCanceled {
				t.Fatalf("want one %s error, got %v", CodeCanceled, diags)
			}
			if want := "compilation stopped: interrupted"; diags[0].Summary != want {
				t.Errorf("summary %q, want %q", diags[0].Summary, want)
			}
		})
	}
}

// compiled is what Compile returned.
type compiled struct {
	g     *graph.Graph
	diags diag.Diagnostics
}

// compileInBackground compiles path under ctx on a goroutine of its own
// and returns where the result arrives (buffered: the goroutine ends
// whether or not it is read).
func compileInBackground(ctx context.Context, path string) <-chan compiled {
	done := make(chan compiled, 1)
	go func() {
		g, diags := Compile(ctx, path, Options{})
		done <- compiled{g, diags}
	}()
	return done
}

// writeSource writes src to a file of the test's temporary folder.
func writeSource(t *testing.T, src []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.yaml")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
