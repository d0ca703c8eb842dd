package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestRootHelpNamesEveryFormat: xosplan --help names every format it reads,
// TOSCA 2.0 included (it named TOSCA 1.0-1.3 only), and where to go next.
func TestRootHelpNamesEveryFormat(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, strings.NewReader(""), &out, &out); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
	help := strings.Join(strings.Fields(out.String()), " ")
	for _, want := range []string{"TOSCA Simple Profile in YAML 1.0-1.3", "TOSCA 2.0", "XOS recipes", "Tonomi-style application manifests", "docs/", "man xosplan"} {
		if !strings.Contains(help, want) {
			t.Errorf("xosplan --help does not name %q:\n%s", want, out.String())
		}
	}
}
