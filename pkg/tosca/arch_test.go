package tosca

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
)

// The os capability's architecture becomes the placement request's trait.
func TestComputeRequestArchitecture(t *testing.T) {
	g, diags := Compile(context.Background(), filepath.Join("testdata", "errors", "os_architecture_unknown.yaml"), Options{})
	requireNoErrors(t, diags)
	known, _ := g.Resource("known")
	if known.Request == nil || !reflect.DeepEqual(known.Request.Required, []string{"HW_ARCH_X86_64"}) {
		t.Errorf("known: request %+v, want HW_ARCH_X86_64 required", known.Request)
	}
	unknown, _ := g.Resource("unknown")
	if unknown.Request != nil && len(unknown.Request.Required) > 0 {
		t.Errorf("unknown: request %+v, want no required trait", unknown.Request)
	}
}
