package views

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/termsafe"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/state"
)

// StateList is the view of `xosplan state list`: a table for people, or
// (--json) one versioned JSON document.
type StateList interface {
	// TornJournal warns that a torn last journal record of bytes bytes
	// was ignored.
	TornJournal(bytes int64)
	// List renders the recorded resources and the unfinished operations.
	List(l *state.Loaded) error
}

// NewStateList returns the JSON view (json) or the human one.
func NewStateList(json bool, s *Streams) StateList {
	if json {
		return &stateListJSON{s: s}
	}
	return &stateListText{s: s}
}

type stateListText struct{ s *Streams }

func (v *stateListText) TornJournal(bytes int64) { tornJournal(v.s, bytes) }

func (v *stateListText) List(l *state.Loaded) error {
	w := v.s.Stdout
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, e := range l.State.Entries() {
		// Addresses and types come from the state file: shown, never
		// obeyed by the terminal.
		fmt.Fprintf(tw, "%s\t%s\t%s\n", termsafe.String(e.Address), termsafe.String(e.Type), e.Status)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range l.Interrupted {
		fmt.Fprintf(w, "interrupted: %s %s (attempt %d) started %s\n", termsafe.String(r.Address), termsafe.String(r.Action), r.Attempt, r.Time.UTC().Format(time.RFC3339))
	}
	for _, r := range l.Running {
		fmt.Fprintf(w, "running: %s %s (attempt %d) started %s\n", termsafe.String(r.Address), termsafe.String(r.Action), r.Attempt, r.Time.UTC().Format(time.RFC3339))
	}
	return nil
}

type stateListJSON struct{ s *Streams }

func (v *stateListJSON) TornJournal(bytes int64) { tornJournal(v.s, bytes) }

// stateListDoc is the versioned output of `state list --json`; its arrays
// are never null.
type stateListDoc struct {
	FormatVersion string          `json:"format_version"`
	Serial        uint64          `json:"serial"`
	Lineage       string          `json:"lineage"`
	Resources     []state.Entry   `json:"resources"`
	Interrupted   []operationJSON `json:"interrupted"`
	// Running are the unfinished operations of an apply that still runs
	// after a force-unlock took its lock.
	Running []operationJSON `json:"running"`
}

// operationJSON is an operation a crashed apply left unfinished, or one
// still running.
type operationJSON struct {
	Address string    `json:"address"`
	Action  string    `json:"action"`
	Attempt int       `json:"attempt"`
	Started time.Time `json:"started"`
}

func (v *stateListJSON) List(l *state.Loaded) error {
	return writeIndentedJSON(v.s.Stdout, stateListDoc{FormatVersion: "1.0", Serial: l.State.Serial, Lineage: l.State.Lineage,
		Resources: l.State.Entries(), Interrupted: operationsJSON(l.Interrupted), Running: operationsJSON(l.Running)})
}

func operationsJSON(recs []state.Record) []operationJSON {
	out := []operationJSON{}
	for _, r := range recs {
		out = append(out, operationJSON{Address: r.Address, Action: r.Action, Attempt: r.Attempt, Started: r.Time.UTC()})
	}
	return out
}

func writeIndentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Discovered is one instance a factory discovered.
type Discovered struct {
	Factory string `json:"factory"`
	executor.DiscoveredInstance
}

// StateDiscovered is the view of `xosplan state discovered`: a table for
// people, or (--json) one versioned JSON document.
type StateDiscovered interface {
	// List renders the instances, sorted by factory and id.
	List(found []Discovered) error
}

// NewStateDiscovered returns the JSON view (json) or the human one.
func NewStateDiscovered(json bool, s *Streams) StateDiscovered {
	if json {
		return stateDiscoveredJSON{s}
	}
	return stateDiscoveredText{s}
}

type stateDiscoveredText struct{ s *Streams }

func (v stateDiscoveredText) List(found []Discovered) error {
	if len(found) == 0 {
		v.s.warn("no discovered instances: xosplan refresh runs the factories' discovery scripts")
		return nil
	}
	tw := tabwriter.NewWriter(v.s.Stdout, 0, 4, 2, ' ', 0)
	for _, d := range found {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", termsafe.String(d.Factory), termsafe.String(d.ID), termsafe.String(d.Name), termsafe.String(d.Status))
	}
	return tw.Flush()
}

type stateDiscoveredJSON struct{ s *Streams }

func (v stateDiscoveredJSON) List(found []Discovered) error {
	if found == nil {
		found = []Discovered{}
	}
	return writeIndentedJSON(v.s.Stdout, struct {
		FormatVersion string       `json:"format_version"`
		Discovered    []Discovered `json:"discovered"`
	}{"1.0", found})
}

// State is the view of the other state subcommands, each of which has one
// output form.
type State interface {
	// Resource renders one recorded resource (state show) as JSON,
	// sensitive values masked.
	Resource(r *state.Resource) error
	// Removed confirms the resources state rm forgot.
	Removed(addrs []string, serial uint64)
	// Touched confirms the resources touch saved without change.
	Touched(addrs []string, serial uint64)
	// Moved confirms the renames state mv made ("old" → "new" pairs).
	Moved(moves [][2]string, serial uint64)
	// Pulled writes the state in its file format (state pull).
	Pulled(data []byte) error
	// Pushed confirms the state state push recorded.
	Pushed(st *state.State)
	// Unlocked confirms the lock force-unlock released.
	Unlocked(id string)
}

// NewState returns the view of the state subcommands.
func NewState(s *Streams) State { return &stateView{s: s} }

type stateView struct{ s *Streams }

func (v *stateView) Resource(r *state.Resource) error {
	red := r.Redacted()
	out, err := state.EncodeResource(&red)
	if err != nil {
		return err
	}
	_, err = v.s.Stdout.Write(out)
	return err
}

func (v *stateView) Removed(addrs []string, serial uint64) {
	for _, a := range addrs {
		fmt.Fprintf(v.s.Stdout, "Removed %s\n", termsafe.String(a))
	}
	fmt.Fprintf(v.s.Stdout, "Successfully removed %d resource(s); state serial is now %d.\n", len(addrs), serial)
}

func (v *stateView) Touched(addrs []string, serial uint64) {
	for _, a := range addrs {
		fmt.Fprintf(v.s.Stdout, "Touched %s: the next apply actuates it again\n", termsafe.String(a))
	}
	fmt.Fprintf(v.s.Stdout, "Successfully touched %d resource(s); state serial is now %d.\n", len(addrs), serial)
}

func (v *stateView) Moved(moves [][2]string, serial uint64) {
	for _, m := range moves {
		fmt.Fprintf(v.s.Stdout, "Move %s to %s\n", termsafe.String(m[0]), termsafe.String(m[1]))
	}
	fmt.Fprintf(v.s.Stdout, "Successfully moved %d resource(s); state serial is now %d.\n", len(moves), serial)
}

func (v *stateView) Pulled(data []byte) error {
	_, err := v.s.Stdout.Write(data)
	return err
}

func (v *stateView) Pushed(st *state.State) {
	fmt.Fprintf(v.s.Stdout, "Pushed %d resource(s); state serial is now %d (lineage %s).\n", len(st.Resources), st.Serial, st.Lineage)
}

func (v *stateView) Unlocked(id string) {
	fmt.Fprintf(v.s.Stdout, "The state lock %s has been released.\n", id)
}
