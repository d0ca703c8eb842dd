package planner

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/crypto/argon2"

	"github.com/xosplan/xosplan/internal/userfile"
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
	// ErrPlanMismatch: the plan file is not the plan its configuration and
	// state give (it was edited); see Verify.
	ErrPlanMismatch = errors.New("saved plan does not match its configuration")
	// ErrWrongState: the plan was made against another state (another
	// file, database, schema or workspace); see CheckState.
	ErrWrongState = errors.New("saved plan was made against another state")
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
		c.Lookup = decodeMap(c.Lookup)
		c.Import = decodeMap(c.Import)
		decodeDriver(&c.Driver)
		decodeOperations(c.PriorOperations)
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
	if p.Configuration == nil {
		p.Configuration = []string{}
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
	decodeOperations(d.Operations)
}

func decodeOperations(ops map[string]graph.Operation) {
	for k, op := range ops {
		op.Inputs = decodeMap(op.Inputs)
		ops[k] = op
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

// ReadPlanFile reads and checks a plan file written by WritePlanFile. The
// open cannot block and refuses anything but a regular file of at most
// MaxPlanFileSize (links followed: the user names the file).
func ReadPlanFile(path string) (*Plan, error) {
	f, _, err := userfile.Open(context.Background(), path, userfile.Options{MaxBytes: MaxPlanFileSize})
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

// MaxInputFileBytes is the largest input file a plan digests: a CSAR
// archive within pkg/config's default limit (a configuration file is at
// most 16 MiB).
const MaxInputFileBytes = 256 << 20

// fileDigest is Digest of the file at path, read as the front ends read
// their files (userfile's checks) and hashed as it is read, so that an
// archive is never held in memory.
func fileDigest(path string) (string, error) {
	f, _, err := userfile.Open(context.Background(), path, userfile.Options{MaxBytes: MaxInputFileBytes})
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, MaxInputFileBytes+1))
	switch {
	case err != nil:
		return "", err
	case n > MaxInputFileBytes:
		return "", &userfile.Error{Path: path, Reason: userfile.ErrTooLarge, Detail: "it grew past the limit of " + userfile.SizeText(MaxInputFileBytes) + " while read"}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// Argon2id parameters of input value digests (RFC 9106, with the memory
// OWASP recommends for one pass). A plan file is shared (a CI artifact),
// and a value passed with --var may be a weak secret: every guess at it
// costs 46 MiB and one pass over them (about 25 ms on a 2024 server
// core), on top of the plan's own salt, which defeats precomputed tables
// and makes every plan a new attack. A handful of inputs still digest in
// well under a second, which plan and apply each pay once.
const (
	argonTime    = 1
	argonMemory  = 46 * 1024 // KiB
	argonThreads = 1
	argonKeyLen  = 32
	// maxDigestWorkers bounds the digests made at once, and with it the
	// memory: argonMemory each.
	maxDigestWorkers = 4
	saltBytes        = 16
)

// NewInputSalt returns a fresh random salt for one plan's input value
// digests (Options.InputSalt, Plan.InputSalt).
func NewInputSalt() (string, error) {
	b := make([]byte, saltBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("making the input salt: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Digests returns the digest of every input file, keyed by its path as
// given ("sha256:<hex>" of its content), and of every input value, keyed
// "var.NAME" ("argon2id:<hex>" of the value's canonical JSON, salted with
// salt, as NewInputSalt makes it, and the name). Plan files keep these
// digests, never the values: they show that a value changed without
// revealing it, and a guess at one costs an argon2id pass per plan.
// Every value goes through argon2id, marked sensitive or not: before
// compiling nothing says which ones are secrets, and a value given with
// --var often is one.
func Digests(files []string, values map[string]graph.Value, salt string) (map[string]string, error) {
	out := make(map[string]string, len(files)+len(values))
	for _, f := range files {
		d, err := fileDigest(f)
		if err != nil {
			return nil, fmt.Errorf("digest of input: %w", err)
		}
		out[f] = d
	}
	if len(values) == 0 {
		return out, nil
	}
	saltBin, err := hex.DecodeString(salt)
	if err != nil || len(saltBin) < saltBytes {
		return nil, fmt.Errorf("digest of input values: the salt must be at least %d random bytes in hex", saltBytes)
	}
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	slices.Sort(names)
	sums := make([]string, len(names))
	errs := make([]error, len(names))
	sem := make(chan struct{}, min(maxDigestWorkers, max(runtime.GOMAXPROCS(0), 1)))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			sums[i], errs[i] = valueDigest(name, values[name], saltBin)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for i, name := range names {
		out["var."+name] = sums[i]
	}
	return out, nil
}

// valueDigest is the argon2id digest of one input value: the name goes
// into the salt, so that two inputs holding the same value do not show it.
func valueDigest(name string, v graph.Value, salt []byte) (string, error) {
	b, err := appendJSON(nil, v)
	if err != nil {
		return "", fmt.Errorf("digest of input %s: %w", name, err)
	}
	s := append(append(slices.Clip(salt), 0), name...)
	return "argon2id:" + hex.EncodeToString(argon2.IDKey(b, s, argonTime, argonMemory, argonThreads, argonKeyLen)), nil
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

// WrongStateError says that a plan is applied to another state than the
// one it was made against. It matches ErrWrongState with errors.Is.
type WrongStateError struct {
	// Planned is the state the plan records; Current the one it is
	// applied to.
	Planned, Current state.Identity
}

// Error names both states.
func (e *WrongStateError) Error() string {
	return fmt.Sprintf("%s: it was made against %s, not %s", ErrWrongState, e.Planned, e.Current)
}

// Is makes errors.Is(err, ErrWrongState) true.
func (e *WrongStateError) Is(target error) bool { return target == ErrWrongState }

// CheckState returns nil when p was made against the state current names,
// or records no state, and a *WrongStateError naming both otherwise. Two
// states that have the same lineage (one migrated from the other) are
// still two states: a plan applies to the one it was made against.
func CheckState(p *Plan, current state.Identity) error {
	if p.State == nil || *p.State == current {
		return nil
	}
	return &WrongStateError{Planned: *p.State, Current: current}
}

// MismatchError names the first difference between a saved plan and the
// plan its configuration gives now (Verify). It matches ErrPlanMismatch
// with errors.Is.
type MismatchError struct {
	// Address is the resource whose change differs; "" for a field of the
	// plan itself.
	Address string
	// Field is the path of the first differing field: within the
	// resource's change ("driver.operations[\"Standard.create\"].implementation"),
	// or of the plan ("input_salt"); "" when the resource is in one plan
	// only.
	Field string
	// Missing says, when Field is "", which plan lacks the resource: "the
	// plan file" or "the plan made again".
	Missing string
}

// Error names the resource and the field.
func (e *MismatchError) Error() string {
	msg := ErrPlanMismatch.Error() + ": "
	switch {
	case e.Address == "":
		msg += e.Field + " differs"
	case e.Field == "":
		msg += fmt.Sprintf("resource %q is not in %s", e.Address, e.Missing)
	default:
		msg += fmt.Sprintf("resource %q: %s differs", e.Address, e.Field)
	}
	return msg
}

// Is makes errors.Is(err, ErrPlanMismatch) true.
func (e *MismatchError) Is(target error) bool { return target == ErrPlanMismatch }

// Verify checks that saved, read from a plan file, is the plan that again
// is: the plan made once more from the configuration and the state saved
// was made from, with saved.Options() and input digests under its salt.
// Both IDs are computed from the content (saved.PlanID is not taken on
// trust); two plans have the same canonical JSON exactly when their IDs
// are equal, and then saved.PlanID must be that ID too. Otherwise Verify
// returns a *MismatchError naming the first difference. Values at
// sensitive paths are null in both encodings: the input digests, which
// CheckStale compares, stand for them.
func Verify(saved, again *Plan) error {
	want, err := ComputeID(again)
	if err != nil {
		return err
	}
	got, err := ComputeID(saved)
	if err != nil {
		return err
	}
	if got == want && saved.PlanID == want {
		return nil
	}
	a, err := canonicalJSON(withoutID(saved))
	if err != nil {
		return err
	}
	b, err := canonicalJSON(withoutID(again))
	if err != nil {
		return err
	}
	var x, y map[string]any
	if err := decodeGeneric(a, &x); err != nil {
		return err
	}
	if err := decodeGeneric(b, &y); err != nil {
		return err
	}
	return firstMismatch(x, y)
}

func withoutID(p *Plan) *Plan {
	q := *p
	q.PlanID = ""
	return &q
}

func decodeGeneric(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// firstMismatch compares two plans decoded generically: the fields of the
// plan in key order, the resource changes and drift matched by address.
func firstMismatch(saved, again map[string]any) *MismatchError {
	for _, k := range UnionKeys(saved, again) {
		switch k {
		case "resource_changes", "resource_drift":
			if m := listMismatch(saved[k], again[k]); m != nil {
				return m
			}
		default:
			if path, ok := difference(saved[k], again[k], fieldPath("", k)); ok {
				return &MismatchError{Field: path}
			}
		}
	}
	// Nothing differs but what ComputeID saw: the file's ID itself.
	return &MismatchError{Field: "plan_id"}
}

// listMismatch compares lists of {address, …} objects: first a resource in
// one list only, then the first field that differs, then the order.
func listMismatch(saved, again any) *MismatchError {
	a, _ := saved.([]any)
	b, _ := again.([]any)
	byAddr := func(l []any) (map[string]map[string]any, []string) {
		m := make(map[string]map[string]any, len(l))
		var order []string
		for _, e := range l {
			o, _ := e.(map[string]any)
			addr, _ := o["address"].(string)
			m[addr] = o
			order = append(order, addr)
		}
		return m, order
	}
	am, aOrder := byAddr(a)
	bm, bOrder := byAddr(b)
	for _, addr := range aOrder {
		if _, ok := bm[addr]; !ok {
			return &MismatchError{Address: addr, Missing: "the plan its configuration gives"}
		}
	}
	for _, addr := range bOrder {
		if _, ok := am[addr]; !ok {
			return &MismatchError{Address: addr, Missing: "the plan file"}
		}
	}
	for _, addr := range aOrder {
		if path, ok := difference(am[addr], bm[addr], ""); ok {
			return &MismatchError{Address: addr, Field: path}
		}
	}
	for i := range aOrder {
		if i >= len(bOrder) || aOrder[i] != bOrder[i] {
			return &MismatchError{Address: aOrder[i], Field: "the order of the changes"}
		}
	}
	return nil
}

// difference returns the path of the first place where a and b differ.
func difference(a, b any, path string) (string, bool) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return orRoot(path), true
		}
		for _, k := range UnionKeys(x, y) {
			if p, ok := difference(x[k], y[k], fieldPath(path, k)); ok {
				return p, true
			}
		}
		return "", false
	case []any:
		y, ok := b.([]any)
		if !ok {
			return orRoot(path), true
		}
		for i := range min(len(x), len(y)) {
			if p, ok := difference(x[i], y[i], path+"["+strconv.Itoa(i)+"]"); ok {
				return p, true
			}
		}
		if len(x) != len(y) {
			return orRoot(path), true
		}
		return "", false
	}
	if a != b {
		return orRoot(path), true
	}
	return "", false
}

func orRoot(path string) string {
	if path == "" {
		return "the whole change"
	}
	return path
}

// fieldPath appends key k to a dotted path; a key that is not a plain
// name (operation keys hold dots) is quoted in brackets.
func fieldPath(path, k string) string {
	plain := k != ""
	for _, r := range k {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			plain = false
			break
		}
	}
	switch {
	case !plain:
		return path + "[" + strconv.Quote(k) + "]"
	case path == "":
		return k
	}
	return path + "." + k
}
