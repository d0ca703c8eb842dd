package views

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/planview"
	"github.com/xosplan/xosplan/pkg/state"
)

// Output is the view of `xosplan output`: the recorded outputs as
// Terraform's `terraform output` prints them, as text (name = value), as
// JSON (--json) or, for one output, raw (--raw). The command has checked
// what it asks for: a sensitive value is passed with show only when the
// person asked to see it, and a raw one is a string, number or boolean.
type Output interface {
	// All renders every output (none: a warning, or {} in JSON).
	All(outs map[string]state.Output, show bool) error
	// One renders the value of one output.
	One(o state.Output, show bool) error
}

// NewOutput returns the view of format: "text", "json" or "raw".
func NewOutput(format string, s *Streams) Output {
	switch format {
	case "json":
		return outputJSON{s}
	case "raw":
		return outputRaw{outputText{s}}
	}
	return outputText{s}
}

type outputText struct{ s *Streams }

func (v outputText) All(outs map[string]state.Output, show bool) error {
	if len(outs) == 0 {
		v.s.warn("no outputs: the state records none (a successful apply records the configuration's outputs)")
		return nil
	}
	_, err := v.s.Stdout.Write(planview.OutputLines(outs, show))
	return err
}

func (v outputText) One(o state.Output, show bool) error {
	_, err := fmt.Fprintln(v.s.Stdout, planview.OutputValue(o, show))
	return err
}

type outputJSON struct{ s *Streams }

func (v outputJSON) All(outs map[string]state.Output, show bool) error {
	return writeIndentedJSON(v.s.Stdout, planview.OutputsJSON(outs, show))
}

// One writes the value alone, as `terraform output -json NAME` does.
func (v outputJSON) One(o state.Output, _ bool) error {
	return writeIndentedJSON(v.s.Stdout, o.Value)
}

// outputRaw prints one string, number or boolean as it is, without quotes
// or a newline, for a shell to capture (`terraform output -raw`).
type outputRaw struct{ outputText }

func (v outputRaw) One(o state.Output, _ bool) error {
	var text string
	switch x := o.Value.(type) {
	case string:
		text = x
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return err
		}
		text = string(b)
	}
	_, err := io.WriteString(v.s.Stdout, text)
	return err
}
