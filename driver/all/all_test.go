package all

import (
	"testing"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/graph"
)

// TestNewRegistry: every driver is registered under the name resources
// give, with the optional parts of the contract the walk relies on.
func TestNewRegistry(t *testing.T) {
	reg := NewRegistry(driver.Options{})
	for _, name := range []string{graph.DriverExec, graph.DriverScripted, graph.DriverNoop, graph.DriverAnsible} {
		if _, ok := reg.Lookup(name); !ok {
			t.Errorf("registry has no %s driver", name)
		}
	}
	if _, ok := reg[graph.DriverScripted].(driver.BatchDriver); !ok {
		t.Error("the scripted driver is not a BatchDriver")
	}
	if _, ok := reg[graph.DriverScripted].(driver.Invoker); !ok {
		t.Error("the scripted driver is not an Invoker")
	}
	for _, name := range []string{graph.DriverExec, graph.DriverScripted, graph.DriverAnsible} {
		if _, ok := reg[name].(driver.SourceRecorder); !ok {
			t.Errorf("the %s driver records no source folder", name)
		}
	}
	if fr, ok := reg.Functions(); !ok || any(fr) != any(reg[graph.DriverExec]) {
		t.Error("the exec driver is not the registry's runner of custom functions")
	}
}
