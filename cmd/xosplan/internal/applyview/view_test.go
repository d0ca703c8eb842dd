package applyview

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/termsafe"
	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
)

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", name), got)
}

// events is an apply that first ends what db's create left running in a
// run that died; then db is retried and fails, app is skipped, web
// converges and applies, and cache is deleted.
var events = []executor.Event{
	{Type: executor.EventLeftover, Address: "db", Action: "create", Attempt: 1, Line: "process group 4242"},
	{Type: executor.EventStart, Address: "db", Action: "create", Attempt: 1},
	{Type: executor.EventStart, Address: "web", Action: "create", Attempt: 1},
	{Type: executor.EventStart, Address: "cache", Action: "delete", Attempt: 1},
	{Type: executor.EventOutput, Address: "db", Action: "create", Line: "Standard.create: starting"},
	{Type: executor.EventRetry, Address: "db", Action: "create", Attempt: 1, Elapsed: 1200 * time.Millisecond, Delay: 200 * time.Millisecond, Error: "exit status 1:\nno disk"},
	{Type: executor.EventConverging, Address: "web", Action: "create", Attempt: 1, Elapsed: 2 * time.Second},
	{Type: executor.EventComplete, Address: "cache", Action: "delete", Attempt: 1, Elapsed: 400 * time.Millisecond},
	{Type: executor.EventStart, Address: "db", Action: "create", Attempt: 2},
	{Type: executor.EventErrored, Address: "db", Action: "create", Attempt: 2, Elapsed: 3 * time.Second, Error: "exit status 1: no disk"},
	{Type: executor.EventSkipped, Address: "app", Action: "create", Cause: "db (create)"},
	{Type: executor.EventProgress, Address: "web", Action: "create", Attempt: 1, Elapsed: 10 * time.Second},
	{Type: executor.EventComplete, Address: "web", Action: "create", Attempt: 1, Elapsed: 65 * time.Second},
	{Type: executor.EventNotStarted, Address: "late", Action: "update"},
}

var failedReport = &executor.Report{
	Steps: []executor.StepResult{
		{Address: "cache", Action: "delete", Result: executor.ResultApplied, Attempts: 1},
		{Address: "db", Action: "create", Result: executor.ResultFailed, Attempts: 2, Error: "exit status 1: no disk"},
		{Address: "web", Action: "create", Result: executor.ResultApplied, Attempts: 1},
		{Address: "app", Action: "create", Result: executor.ResultSkipped, Cause: "db (create)"},
		{Address: "late", Action: "update", Result: executor.ResultNotStarted},
	},
	Added: 1, Destroyed: 1, Failed: 1, Skipped: 1, NotStarted: 1,
}

var okReport = &executor.Report{
	Steps: []executor.StepResult{{Address: "web", Action: "create", Result: executor.ResultApplied}},
	Added: 3, Changed: 1, Destroyed: 2,
}

func TestText(t *testing.T) {
	var b bytes.Buffer
	v := NewText(&b, false)
	for _, e := range events {
		v.Event(e)
	}
	if err := v.Report(failedReport, OpApply); err != nil {
		t.Fatal(err)
	}
	golden(t, "failed.txt", b.Bytes())
}

func TestJSON(t *testing.T) {
	var b bytes.Buffer
	now := time.Date(2026, 11, 22, 1, 2, 3, 456789000, time.UTC)
	v := NewJSON(&b, func() time.Time { return now })
	for _, e := range events {
		v.Event(e)
	}
	if err := v.Report(failedReport, OpApply); err != nil {
		t.Fatal(err)
	}
	golden(t, "failed.jsonl", b.Bytes())
}

func TestClosingLine(t *testing.T) {
	tests := []struct {
		rep  *executor.Report
		op   Operation
		want string
	}{
		{okReport, OpApply, "Apply complete! Resources: 3 added, 1 changed, 2 destroyed."},
		{&executor.Report{}, OpApply, "Apply complete! Resources: 0 added, 0 changed, 0 destroyed."},
		{&executor.Report{Destroyed: 4, Forgotten: 1}, OpDestroy, "Destroy complete! Resources: 4 destroyed, 1 forgotten."},
		{&executor.Report{Checked: 4, Refreshed: 2}, OpRefresh, "Refresh complete! Resources: 4 checked, 2 changed outside xosplan."},
		{failedReport, OpApply, "Apply failed! Resources: 1 added, 0 changed, 1 destroyed; 1 failed, 1 skipped, 1 not started."},
		{&executor.Report{NotStarted: 3, Interrupted: true}, OpDestroy, "Destroy interrupted! Resources: 0 destroyed; 0 failed, 0 skipped, 3 not started."},
	}
	for _, tt := range tests {
		if got := ClosingLine(tt.rep, tt.op); got != tt.want {
			t.Errorf("ClosingLine = %q, want %q", got, tt.want)
		}
	}
}

func TestColorOnlyWhenAsked(t *testing.T) {
	var plain, color bytes.Buffer
	if err := NewText(&plain, false).Report(okReport, OpApply); err != nil {
		t.Fatal(err)
	}
	if err := NewText(&color, true).Report(okReport, OpApply); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(plain.Bytes(), []byte("\x1b[")) || !bytes.Contains(color.Bytes(), []byte("\x1b[")) {
		t.Errorf("plain %q, color %q", plain.String(), color.String())
	}
	if plain.String() != "\nApply complete! Resources: 3 added, 1 changed, 2 destroyed.\n" {
		t.Errorf("a clean apply should end with one line, got %q", plain.String())
	}
}

func TestElapsed(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0s", 400 * time.Millisecond: "0s", 1500 * time.Millisecond: "2s", 63 * time.Second: "1m3s"} {
		if got := Elapsed(d); got != want {
			t.Errorf("Elapsed(%s) = %s, want %s", d, got, want)
		}
	}
}

// TestControlCharactersShown checks that an escape sequence in an address,
// an error, a driver's output line or an output name reaches the terminal
// as symbols, in colour too, while the view's own colours stay escapes.
func TestControlCharactersShown(t *testing.T) {
	const esc = "web\x1b]0;pwned\x07"
	for _, color := range []bool{false, true} {
		var b bytes.Buffer
		v := NewText(&b, color)
		v.Event(executor.Event{Type: executor.EventStart, Address: esc, Action: "create", Attempt: 1})
		v.Event(executor.Event{Type: executor.EventOutput, Address: esc, Action: "create", Line: "\x1b[2Jcleared"})
		v.Event(executor.Event{Type: executor.EventErrored, Address: esc, Action: "create", Error: "bad \x1b[31m"})
		rep := &executor.Report{Failed: 1, Steps: []executor.StepResult{
			{Address: esc, Action: "create", Result: executor.ResultFailed, Error: "bad \x1b[31m"},
			{Address: "app", Action: "create", Result: executor.ResultSkipped, Cause: esc},
		}}
		if err := v.Report(rep, OpApply); err != nil {
			t.Fatal(err)
		}
		if err := v.Outputs(map[string]executor.Output{"url\x1b[1m": {Value: "x\x1b"}}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{"web␛]0;pwned␇: Creating...", "web␛]0;pwned␇ (create): ␛[2Jcleared", "bad ␛[31m", "depends on web␛]0;pwned␇", "url␛[1m = "} {
			if !strings.Contains(out, want) {
				t.Errorf("color %v: output lacks %q:\n%s", color, want, out)
			}
		}
		for _, own := range []string{ansiRed, ansiBold, ansiReset} {
			out = strings.ReplaceAll(out, own, "")
		}
		if i := strings.IndexFunc(out, func(r rune) bool { return r != '\n' && termsafe.IsControl(r) }); i >= 0 {
			t.Errorf("color %v: output holds control character %q:\n%s", color, out[i], out)
		}
	}
}

// TestSensitiveOutputsAreMarkedNotShown checks both views: the text says
// (sensitive value), the "outputs" event says sensitive: true and holds no
// value, as Terraform's -json does; other outputs show their values.
func TestSensitiveOutputsAreMarkedNotShown(t *testing.T) {
	outs := map[string]executor.Output{
		"dsn":  {Value: graph.Value("pg://admin:hunter2@db"), Sensitive: true},
		"keys": {Value: []graph.Value{"hunter2"}, Sensitive: true},
		"url":  {Value: "http://10.0.0.9"},
	}
	var text, js bytes.Buffer
	if err := NewText(&text, false).Outputs(outs); err != nil {
		t.Fatal(err)
	}
	if err := NewJSON(&js, func() time.Time { return time.Unix(0, 0).UTC() }).Outputs(outs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"dsn = (sensitive value)\n", "keys = (sensitive value)\n", `url = "http://10.0.0.9"`} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	for _, want := range []string{`"dsn":{"sensitive":true}`, `"keys":{"sensitive":true}`, `"url":{"sensitive":false,"value":"http://10.0.0.9"}`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("JSON lacks %s:\n%s", want, js.String())
		}
	}
	if strings.Contains(text.String()+js.String(), "hunter2") {
		t.Errorf("a sensitive output is shown:\n%s%s", text.String(), js.String())
	}
}
