// Package all is where xosplan's drivers are registered: the one package
// that imports them all, and that cmd/xosplan (or an embedder wanting
// xosplan's drivers) calls. A new driver is a folder under driver/ and one
// line here.
package all

import (
	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/driver/ansible"
	"github.com/xosplan/xosplan/driver/exec"
	"github.com/xosplan/xosplan/driver/noop"
	"github.com/xosplan/xosplan/driver/placement"
	"github.com/xosplan/xosplan/driver/scripted"
	"github.com/xosplan/xosplan/pkg/graph"
)

// NewRegistry returns a Registry holding xosplan's drivers, each under the
// name resources give (graph.Driver.Name), configured by opts.
func NewRegistry(opts driver.Options) driver.Registry {
	return driver.Registry{
		graph.DriverExec:      exec.New(opts),
		graph.DriverScripted:  scripted.New(opts),
		graph.DriverNoop:      noop.Driver{},
		graph.DriverAnsible:   ansible.New(opts),
		graph.DriverPlacement: placement.New(opts),
	}
}
