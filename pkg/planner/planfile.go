package planner

import (
	"bytes"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// Errors about plan files; compare with errors.Is.
var (
	// ErrStalePlan: the state or the inputs changed since the plan was made.
	ErrStalePlan = errors.New("saved plan is stale")
	// ErrBadPlanFile: the file is not a plan this version can read, or its
	// content does not match its plan_id.
	ErrBadPlanFile = errors.New("not a valid plan file")
)

// MaxPlanFileSize bounds what ReadPlanFile accepts.
const MaxPlanFileSize = 512 << 20

// Encode writes the plan as its file form: compact JSON and a newline, map
// keys sorted, values at sensitive spec paths and sensitive operation
// inputs (graph.Operation.Sensitive) replaced by null. The same plan always
// encodes to the same bytes.
func Encode(w io.Writer, p *Plan) error {
	b, err := canonicalJSON(p)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ComputeID returns "sha256:<hex>" of the plan's canonical JSON with
// PlanID left empty, so that the ID names the content.
func ComputeID(p *Plan) (string, error) {
	q := *p
	q.PlanID = ""
	b, err := canonicalJSON(&q)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

func canonicalJSON(p *Plan) ([]byte, error) {
	return encodePlan(p)
}

// Redact returns a copy of spec with the value at every sensitive dot path
// (and anything below it) replaced by nil. The input is not modified;
// parts without sensitive paths are shared.
func Redact(spec map[string]graph.Value, sensitive []string) map[string]graph.Value {
	if spec == nil || len(sensitive) == 0 {
		return spec
	}
	set := make(map[string]bool, len(sensitive))
	for _, s := range sensitive {
		set[s] = true
	}
	v, _ := redactValue("", spec, set, sensitive).(map[string]graph.Value)
	return v
}

func redactValue(path string, v graph.Value, set map[string]bool, all []string) graph.Value {
	if set[path] {
		return nil
	}
	if path != "" && !slices.ContainsFunc(all, func(s string) bool { return strings.HasPrefix(s, path+".") }) {
		return v
	}
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch x := v.(type) {
	case map[string]graph.Value:
		out := make(map[string]graph.Value, len(x))
		for k, e := range x {
			out[k] = redactValue(join(k), e, set, all)
		}
		return out
	case []graph.Value:
		out := make([]graph.Value, len(x))
		for i, e := range x {
			out[i] = redactValue(join(strconv.Itoa(i)), e, set, all)
		}
		return out
	}
	return v
}

// Decode reads a plan written by Encode. It refuses another major format
// version and a file whose content does not match its plan_id.
func Decode(r io.Reader) (*Plan, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxPlanFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading plan: %w", err)
	}
	if len(data) > MaxPlanFileSize {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrBadPlanFile, MaxPlanFileSize)
	}
	var head struct {
		FormatVersion string `json:"format_version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadPlanFile, err)
	}
	major, _, _ := strings.Cut(head.FormatVersion, ".")
	if want, _, _ := strings.Cut(FormatVersion, "."); major != want {
		return nil, fmt.Errorf("%w: format version %q, this xosplan reads %s.x", ErrBadPlanFile, head.FormatVersion, want)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var p Plan
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadPlanFile, err)
	}
	for i := range p.Changes {
		c := &p.Changes[i]
		c.Before = decodeMap(c.Before)
		c.After = decodeMap(c.After)
		decodeDriver(&c.Driver)
	}
	for i := range p.Drift {
		p.Drift[i].Before = decodeMap(p.Drift[i].Before)
		p.Drift[i].After = decodeMap(p.Drift[i].After)
	}
	if p.Changes == nil {
		p.Changes = []ResourceChange{}
	}
	if p.Drift == nil {
		p.Drift = []ResourceDrift{}
	}
	if p.InputDigests == nil {
		p.InputDigests = map[string]string{}
	}
	id, err := ComputeID(&p)
	if err != nil {
		return nil, err
	}
	if id != p.PlanID {
		return nil, fmt.Errorf("%w: its content does not match its plan_id (edited or damaged)", ErrBadPlanFile)
	}
	return &p, nil
}

func decodeMap(m map[string]graph.Value) map[string]graph.Value {
	if m == nil {
		return nil
	}
	out := make(map[string]graph.Value, len(m))
	for k, v := range m {
		out[k] = graph.DecodeValue(v)
	}
	return out
}

func decodeDriver(d *graph.Driver) {
	d.Options = decodeMap(d.Options)
	for k, op := range d.Operations {
		op.Inputs = decodeMap(op.Inputs)
		d.Operations[k] = op
	}
}

// WritePlanFile writes the plan to path atomically: a temporary file in
// the same folder, synced, then renamed over path.
func WritePlanFile(path string, p *Plan) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing plan file: %w", err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	if err = Encode(f, p); err != nil {
		return fmt.Errorf("writing plan file %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("writing plan file %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("writing plan file %s: %w", path, err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("writing plan file %s: %w", path, err)
	}
	return nil
}

// ReadPlanFile reads and checks a plan file written by WritePlanFile.
func ReadPlanFile(path string) (*Plan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading plan file: %w", err)
	}
	defer f.Close()
	p, err := Decode(f)
	if err != nil {
		return nil, fmt.Errorf("plan file %s: %w", path, err)
	}
	return p, nil
}

// Digest returns "sha256:<hex>" of data.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// valueDigestRounds is the PBKDF2 iteration count for input values: a
// plan file is shared (CI artifacts), and a plain hash of a weak secret
// passed with --var could be reversed by guessing; this makes each guess
// cost as much as 50,000 hashes, while a few dozen inputs still digest in
// well under a second.
const valueDigestRounds = 50_000

// Digests returns the digest of every input file, keyed by its path as
// given ("sha256:<hex>"), and of every input value, keyed "var.NAME"
// ("pbkdf2-sha256:<hex>" of the value's canonical JSON, salted with the
// name). Plan files keep these digests, never the values: they show that
// a value changed without revealing it.
func Digests(files []string, values map[string]graph.Value) (map[string]string, error) {
	out := make(map[string]string, len(files)+len(values))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("digest of input: %w", err)
		}
		out[f] = Digest(data)
	}
	for k, v := range values {
		b, err := AppendJSON(nil, v)
		if err != nil {
			return nil, fmt.Errorf("digest of input %s: %w", k, err)
		}
		key, err := pbkdf2.Key(sha256.New, string(b), []byte("xosplan input value "+k), valueDigestRounds, sha256.Size)
		if err != nil {
			return nil, fmt.Errorf("digest of input %s: %w", k, err)
		}
		out["var."+k] = "pbkdf2-sha256:" + hex.EncodeToString(key)
	}
	return out, nil
}

// StaleError lists why a saved plan no longer applies. It matches
// ErrStalePlan with errors.Is.
type StaleError struct {
	Reasons []string
}

// Error names every reason.
func (e *StaleError) Error() string {
	return ErrStalePlan.Error() + ": " + strings.Join(e.Reasons, "; ")
}

// Is makes errors.Is(err, ErrStalePlan) true.
func (e *StaleError) Is(target error) bool { return target == ErrStalePlan }

// CheckStale returns nil when the plan was made against this state (same
// lineage and serial; nil state means none) and these input digests (as
// returned by Digests), and a *StaleError naming each difference otherwise.
func CheckStale(p *Plan, current *state.State, digests map[string]string) error {
	var reasons []string
	lineage, serial := "", uint64(0)
	if current != nil {
		lineage, serial = current.Lineage, current.Serial
	}
	switch {
	case p.Lineage != lineage && p.Lineage == "":
		reasons = append(reasons, fmt.Sprintf("the plan was made without a state, but a state with lineage %s exists now", lineage))
	case p.Lineage != lineage:
		reasons = append(reasons, fmt.Sprintf("the plan was made for state lineage %s, but the state has lineage %q", p.Lineage, lineage))
	case p.Serial != serial:
		reasons = append(reasons, fmt.Sprintf("the state changed since the plan was made (serial %d, the plan was made at serial %d)", serial, p.Serial))
	}
	keys := make([]string, 0, len(p.InputDigests)+len(digests))
	for k := range p.InputDigests {
		keys = append(keys, k)
	}
	for k := range digests {
		if _, ok := p.InputDigests[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		was, inPlan := p.InputDigests[k]
		now, inNow := digests[k]
		what := "input file " + k
		if name, ok := strings.CutPrefix(k, "var."); ok {
			what = "input value " + name
		}
		switch {
		case !inNow:
			reasons = append(reasons, what+" was used by the plan but is not given now")
		case !inPlan:
			reasons = append(reasons, what+" is new since the plan was made")
		case was != now:
			reasons = append(reasons, what+" changed since the plan was made")
		}
	}
	if len(reasons) == 0 {
		return nil
	}
	return &StaleError{Reasons: reasons}
}
