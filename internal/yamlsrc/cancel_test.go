package yamlsrc

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestParseContextStopsWhenCanceled checks that a parse whose context has
// ended reads no further and returns no document and one CodeCanceled
// error that gives the cause, and that ParseContext with a live context
// is Parse.
func TestParseContextStopsWhenCanceled(t *testing.T) {
	data := []byte("a: [" + strings.Repeat("1, ", 10_000) + "1]\n")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("interrupted"))
	root, diags := ParseContext(ctx, "f.yaml", data, Limits{})
	if root != nil || len(diags) != 1 || diags[0].Code != CodeCanceled || diags[0].Summary != "reading stopped: interrupted" {
		t.Errorf("canceled parse: root %v, diagnostics %v", root != nil, diags)
	}
	root, diags = ParseContext(context.Background(), "f.yaml", data, Limits{})
	if root == nil || len(diags) != 0 || len(root.Get("a").Content) != 10_001 {
		t.Errorf("parse: root %v, diagnostics %v", root != nil, diags)
	}
}
