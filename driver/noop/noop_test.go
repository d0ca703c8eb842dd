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

// TestNoopReadIsNotChecked: a read of an unmanaged resource with nothing
// to look it up is recorded "not checked", never "ok" (before, the noop
// driver answered every read ok and active).
func TestNoopReadIsNotChecked(t *testing.T) {
	r := &graph.Resource{Address: "mysite", Type: "tosca.nodes.Site", Management: graph.Unmanaged,
		Driver: graph.Driver{Name: graph.DriverNoop}, Lookup: map[string]graph.Value{"name": "mysite"}}
	prior := &state.Resource{Address: "mysite", Feedback: state.Feedback{Attributes: map[string]graph.Value{"a": "1"}}}
	o, err := Driver{}.Apply(context.Background(), driver.Request{Action: driver.ActionRead, Address: "mysite", Resource: r, Prior: prior})
	if err != nil {
		t.Fatal(err)
	}
	fb := o.Feedback
	if fb.BackendStatus != driver.NotCheckedStatus || fb.Status.Message != driver.NotCheckedStatus {
		t.Errorf("backend status %q, message %q; want %q", fb.BackendStatus, fb.Status.Message, driver.NotCheckedStatus)
	}
	if !fb.Status.Active || fb.Attributes["a"] != "1" {
		t.Errorf("the read lost the record or holds dependents up: %+v", fb)
	}
	lk, _ := fb.Extra[driver.ExtraLookup].(map[string]graph.Value)
	if lk["checked"] != false || driver.RecordedKeys(fb)["name"] != "mysite" {
		t.Errorf("extra lookup = %v", fb.Extra)
	}
}
