package noop

import (
	"context"
	"testing"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/driver/drivertest"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

func TestNoop(t *testing.T) {
	r := &graph.Resource{Address: "a", Driver: graph.Driver{Name: graph.DriverNoop}}
	o, err := Driver{}.Apply(context.Background(), driver.Request{Action: driver.ActionCreate, Address: "a", Resource: r})
	if err != nil || !o.Feedback.Status.Active || o.Feedback.BackendCode != state.BackendOK {
		t.Fatalf("create: %v %+v", err, o)
	}
	o, err = Driver{}.Apply(context.Background(), driver.Request{Action: driver.ActionDelete, Address: "a", Prior: drivertest.Recorded(r, o)})
	if err != nil || !o.Gone {
		t.Fatalf("delete: %v %+v", err, o)
	}
}
