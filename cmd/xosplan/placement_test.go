package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/placement"
	"github.com/xosplan/xosplan/pkg/placement/placementtest"
)

// TestPlacementCandidatesURL runs `placement candidates --placement-url`
// against a Placement API served on 127.0.0.1 by the embedded model.
func TestPlacementCandidatesURL(t *testing.T) {
	m, diags := placement.LoadProviders("demo.yaml", placement.DemoProviders())
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	srv := httptest.NewServer(placementtest.NewHandler(m))
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"placement", "candidates", "--placement-url", srv.URL,
		"--resources", "VCPU:2,MEMORY_MB:2048", "--required", "HW_ARCH_AARCH64"}, strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "1. arm-1: MEMORY_MB 2048, VCPU 2") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	stdout.Reset()
	stderr.Reset()
	code = run(context.Background(), []string{"placement", "candidates", "--placement-url", srv.URL,
		"--query", "resources1=VCPU:1&resources2=VCPU:1"}, strings.NewReader(""), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), `"group_policy" parameter is required`) {
		t.Errorf("exit %d, stderr %s", code, stderr.String())
	}
}
