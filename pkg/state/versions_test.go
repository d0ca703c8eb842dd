package state

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestVersionsRules(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	for _, c := range []struct {
		name         string
		v            Versions
		sync, policy bool
	}{
		{"none recorded", Versions{}, false, false},
		{"enacted what was saved", Versions{Updated: at(1), Enacted: at(1), Policed: at(1)}, false, false},
		{"saved since enacted", Versions{Updated: at(2), Enacted: at(1), Policed: at(2)}, true, false},
		{"a policy changed it since enacted", Versions{Updated: at(1), ChangedByPolicy: at(3), Enacted: at(1), Policed: at(1)}, true, false},
		{"a step changed it since policed", Versions{Updated: at(1), ChangedByStep: at(4), Enacted: at(1), Policed: at(1)}, false, true},
		{"saved since policed", Versions{Updated: at(5), Enacted: at(5), Policed: at(1)}, false, true},
	} {
		if got := c.v.NeedsSync(); got != c.sync {
			t.Errorf("%s: NeedsSync = %v, want %v", c.name, got, c.sync)
		}
		if got := c.v.NeedsPolicy(); got != c.policy {
			t.Errorf("%s: NeedsPolicy = %v, want %v", c.name, got, c.policy)
		}
	}
}

// A record written before versions were kept reads its versions from its
// feedback, so that it needs no sync it did not need before.
func TestCurrentVersionsOfAnOldRecord(t *testing.T) {
	enacted := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	r := Resource{Feedback: Feedback{BackendCode: BackendOK, Enacted: enacted}}
	v := r.CurrentVersions()
	if !v.Updated.Equal(enacted) || !v.Enacted.Equal(enacted) || v.NeedsSync() {
		t.Errorf("versions of an old record: %+v", v)
	}
	r.Feedback.BackendCode = BackendError
	if v := r.CurrentVersions(); !v.Enacted.IsZero() {
		t.Errorf("a failed old record enacted %v", v.Enacted)
	}
}

func TestTouch(t *testing.T) {
	ctx := context.Background()
	f, _ := seeded(t)
	before := mustRead(t, f)
	if _, err := Touch(ctx, f, time.Now(), "app_00000", "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("touching an absent address: %v, want ErrNotFound", err)
	}
	if s := mustRead(t, f); s.Serial != before.Serial {
		t.Fatalf("a refused touch wrote serial %d", s.Serial)
	}
	r, _ := before.Lookup("app_00000")
	if r.CurrentVersions().NeedsSync() {
		t.Fatalf("app_00000 needs a sync before the touch: %+v", r.CurrentVersions())
	}
	// A clock behind the version enacted still touches.
	s, err := Touch(ctx, f, time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), "app_00000")
	if err != nil {
		t.Fatal(err)
	}
	if s.Serial != before.Serial+1 {
		t.Errorf("serial %d, want %d", s.Serial, before.Serial+1)
	}
	after, _ := mustRead(t, f).Lookup("app_00000")
	if !after.Versions.NeedsSync() {
		t.Errorf("touched, yet no sync needed: %+v", after.Versions)
	}
	if other, _ := mustRead(t, f).Lookup("app_00002"); other.Versions.NeedsSync() {
		t.Errorf("an untouched resource needs a sync: %+v", other.Versions)
	}
}
