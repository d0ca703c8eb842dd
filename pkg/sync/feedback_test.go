package sync

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// TestObservationsAreChecked: a body is read as an observation within its
// limits; every refusal has its HTTP status and a message naming what is
// wrong, never a value.
func TestObservationsAreChecked(t *testing.T) {
	deep := strings.Repeat("[", MaxFeedbackDepth+1) + strings.Repeat("]", MaxFeedbackDepth+1)
	many := make([]string, MaxFeedbackKeys+1)
	for i := range many {
		many[i] = `"k` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + `": 1`
	}
	for _, tc := range []struct {
		body string
		code int
		want string
	}{
		{`{"source": "onos", "attributes": {"uplink": "up", "gone": null}, "signals": {"net.vlan": 42}, "status": {"active": true, "message": "ok"}}`, 0, ""},
		{`{"attributes": {"uplink": "s3cret"`, http.StatusBadRequest, "not one valid JSON value"},
		{`{"attributes": {"a": 1}} {}`, http.StatusBadRequest, "not one valid JSON value"},
		{`["s3cret"]`, http.StatusBadRequest, "must be a JSON object"},
		{`{"spec": {"name": "s3cret"}}`, http.StatusBadRequest, `unknown field "spec"`},
		{`{"source": 7, "attributes": {"a": 1}}`, http.StatusBadRequest, "source must be a string"},
		{`{"source": "` + strings.Repeat("s", MaxFeedbackNameBytes+1) + `", "attributes": {"a": 1}}`, http.StatusBadRequest, "source is longer than"},
		{`{"status": {"active": "s3cret"}}`, http.StatusBadRequest, "status.active must be true or false"},
		{`{"status": {"healthy": true}}`, http.StatusBadRequest, `unknown status field "healthy"`},
		{`{"status": "s3cret"}`, http.StatusBadRequest, "status must be an object"},
		{`{"status": {"message": "` + strings.Repeat("m", MaxFeedbackMessageBytes+1) + `"}}`, http.StatusBadRequest, "status.message is longer than"},
		{`{"attributes": ["s3cret"]}`, http.StatusBadRequest, "attributes must be an object"},
		{`{"attributes": {"": "s3cret"}}`, http.StatusBadRequest, "a name must be 1 to 255 bytes"},
		{`{"signals": {"a\nb": "s3cret"}}`, http.StatusBadRequest, "a name must be 1 to 255 bytes"},
		{`{"attributes": {"commands": {}}}`, http.StatusBadRequest, "kept by xosplan itself"},
		{`{"attributes": {"deep": ` + deep + `}}`, http.StatusBadRequest, "nested deeper than"},
		{`{"attributes": {"u": {"$unknown": {"expr": "x"}}}}`, http.StatusBadRequest, "not an unknown"},
		{`{"attributes": {` + strings.Join(many, ", ") + `}}`, http.StatusBadRequest, "at most 256"},
		{`{"source": "onos"}`, http.StatusBadRequest, "the observation is empty"},
		{`{"attributes": {"x": "` + strings.Repeat("a", MaxFeedbackBytes) + `"}}`, http.StatusRequestEntityTooLarge, "larger than"},
	} {
		obs, err := readObservation(strings.NewReader(tc.body))
		if tc.code == 0 {
			if err != nil {
				t.Errorf("%.60s: %v", tc.body, err)
				continue
			}
			if obs.Source != "onos" || obs.Attributes["uplink"] != "up" || obs.Signals["net.vlan"] != int64(42) || obs.Status == nil || !obs.Status.Active {
				t.Errorf("read %+v", obs)
			}
			continue
		}
		var fe *feedbackError
		if !errors.As(err, &fe) || fe.code != tc.code || !strings.Contains(fe.msg, tc.want) || strings.Contains(fe.msg, "s3cret") {
			t.Errorf("%.60s: %v, want %d saying %q without the value", tc.body, err, tc.code, tc.want)
		}
	}
	if obs, err := readObservation(strings.NewReader(`{"attributes": {"a": 1}}`)); err != nil || obs.Source != "api" {
		t.Errorf("an observation without a source: %+v, %v", obs, err)
	}
}

// FuzzReadObservation: whatever the body, reading it never panics, and
// what it accepts stays within the limits.
func FuzzReadObservation(f *testing.F) {
	for _, s := range []string{`{"attributes": {"a": 1}}`, `{"status": {"failed": true, "message": "x"}}`, `{"signals": {"i.p": [1, {"a": null}]}}`, `{`, `[]`, `{"source": ""}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		obs, err := readObservation(strings.NewReader(string(body)))
		if err != nil {
			var fe *feedbackError
			if !errors.As(err, &fe) || fe.code < 400 || fe.code > 499 {
				t.Fatalf("refusal %v is not a 4xx feedbackError", err)
			}
			return
		}
		if len(obs.Attributes)+len(obs.Signals) > MaxFeedbackKeys || len(obs.Source) > MaxFeedbackNameBytes || (obs.Status == nil && len(obs.Attributes)+len(obs.Signals) == 0) {
			t.Fatalf("accepted %+v", obs)
		}
	})
}

// TestObservationIsRecordedAsFeedbackAndWakesDependents: an observation
// of db is recorded as its feedback (merged attributes, a null removing
// one, the status replaced), never its spec; the activity log names the
// paths; what depends on db, directly or not, is health-checked at once
// and a reconcile runs; db observed failed is actuated again by it. An
// unknown address is refused, and so is one more observation than the
// queue holds.
func TestObservationIsRecordedAsFeedbackAndWakesDependents(t *testing.T) {
	h := newHarness(t, []string{"db", "app", "web", "other"}, map[string][]string{"app": {"db"}, "web": {"app"}}, func(o *Options) { o.HealthInterval = time.Hour })
	h.start()
	if err := h.e.Observe("nope", Observation{Source: "x", Attributes: map[string]graph.Value{"a": int64(1)}}); !errors.Is(err, ErrUnknownResource) {
		t.Errorf("Observe(nope) = %v", err)
	}
	if err := h.e.Observe("db", Observation{Source: "onos", Attributes: map[string]graph.Value{"uplink": "up", "gone": nil}}); err != nil {
		t.Fatal(err)
	}
	h.wait()
	st, err := h.store.Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	db, _ := st.Lookup("db")
	if db.Feedback.Attributes["uplink"] != "up" || db.Spec["v"] != "v1" || len(db.Spec) != 1 {
		t.Errorf("recorded db: spec %v, attributes %v", db.Spec, db.Feedback.Attributes)
	}
	act := h.status("db").Activity
	if last := act[len(act)-1]; last.Type != EventFeedback || last.Message != "observation from onos recorded: attributes.uplink" {
		t.Errorf("activity %+v", last)
	}
	for addr, want := range map[string]int{"app": 1, "web": 1, "other": 0, "db": 0} {
		if got := len(h.drv.callsOf(addr, "health")); got != want {
			t.Errorf("%s had %d health checks, want %d", addr, got, want)
		}
	}

	if err := h.e.Observe("db", Observation{Source: "onos", Status: &state.Status{Failed: true, Message: "switch lost"}}); err != nil {
		t.Fatal(err)
	}
	h.wait()
	if got := h.drv.callsOf("db", "create"); len(got) != 2 {
		t.Errorf("db observed failed was not created again: %v", got)
	}

	// One queued for a resource that is gone by the time it is recorded
	// is dropped, and the others are recorded.
	h.e.mu.Lock()
	h.e.observations = append(h.e.observations, observation{addr: "deleted", obs: Observation{Attributes: map[string]graph.Value{"a": int64(1)}}})
	h.e.mu.Unlock()
	if err := h.e.Observe("app", Observation{Source: "onos", Attributes: map[string]graph.Value{"b": int64(2)}}); err != nil {
		t.Fatal(err)
	}
	h.wait()
	st, err = h.store.Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if app, _ := st.Lookup("app"); app.Feedback.Attributes["b"] != int64(2) {
		t.Errorf("app recorded %v beside an observation of a resource gone", app.Feedback.Attributes)
	}

	h.e.mu.Lock()
	h.e.observations = slices.Grow(h.e.observations, MaxPendingObservations)
	for range MaxPendingObservations {
		h.e.observations = append(h.e.observations, observation{addr: "db"})
	}
	h.e.mu.Unlock()
	if err := h.e.Observe("db", Observation{Attributes: map[string]graph.Value{"a": int64(1)}}); !errors.Is(err, ErrObservationQueueFull) {
		t.Errorf("a full queue: %v", err)
	}
}

// TestFeedbackNeedsTheToken: POST /v1/resources/{addr}/feedback is
// refused without the token (401), by an API that has none (403), for a
// resource not recorded (404), and queued with it (202).
func TestFeedbackNeedsTheToken(t *testing.T) {
	h := newHarness(t, []string{"db"}, nil, func(o *Options) { o.HealthInterval = time.Hour })
	h.start()
	body := `{"attributes": {"uplink": "up"}}`
	for _, tc := range []struct {
		token, sent, path string
		want              int
	}{
		{"s3cret", "", "/v1/resources/db/feedback", 401},
		{"s3cret", "wrong", "/v1/resources/db/feedback", 401},
		{"", "", "/v1/resources/db/feedback", 403},
		{"s3cret", "s3cret", "/v1/resources/nope/feedback", 404},
		{"s3cret", "s3cret", "/v1/resources/db/feedback", 202},
	} {
		srv := httptest.NewServer(Handler(h.e, APIOptions{Token: tc.token, WritesOnly: true}))
		header := map[string]string{"Content-Type": "application/json"}
		if tc.sent != "" {
			header["Authorization"] = "Bearer " + tc.sent
		}
		code, _, answer := send(t, srv, "POST", tc.path, body, header)
		srv.Close()
		if code != tc.want || strings.Contains(answer, "s3cret") || strings.Contains(answer, "uplink") {
			t.Errorf("token %q, sent %q, %s: %d %s, want %d without the token or a value", tc.token, tc.sent, tc.path, code, answer, tc.want)
		}
	}
}
