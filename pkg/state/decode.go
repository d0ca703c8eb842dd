package state

import (
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/xosplan/xosplan/internal/canonjson"
	"github.com/xosplan/xosplan/pkg/graph"
)

// parser reads the state file format with canonjson's reader rather than
// encoding/json: encoding/json with UseNumber, plus the graph.DecodeValue
// pass, takes about half a second for the state of 10,000 resources, which
// would eat most of a plan's budget. The parser gives the same result
// (FuzzDecode compares the two): struct fields matched exactly or
// case-insensitively, unknown fields skipped, null leaving a field zero,
// the last of duplicate keys winning, values as canonjson.Reader.Value
// reads them (which, unlike encoding/json, refuses numbers beyond
// float64's range).
type parser struct {
	canonjson.Reader
}

// The typed readers below decode into a destination the way encoding/json
// does: null leaves a string, number, boolean, time or struct as it was and
// sets a map or slice to nil; a map is merged into; a slice is refilled
// from index 0, reusing its elements.

func (p *parser) str(dst *string) error {
	if isNull, err := p.Null(); isNull || err != nil {
		return err
	}
	b, err := p.StringBytes()
	if err == nil {
		*dst = p.Intern(b)
	}
	return err
}

func (p *parser) boolean(dst *bool) error {
	switch p.Peek() {
	case 't':
		*dst = true
		return p.Literal("true")
	case 'f':
		*dst = false
		return p.Literal("false")
	case 'n':
		return p.Literal("null")
	}
	return p.Unexpected("where a boolean was expected")
}

// integer reads a number that must be an integer within [lo, hi]; null
// returns ok false.
func (p *parser) integer(field string, lo, hi int64) (n int64, ok bool, err error) {
	if isNull, err := p.Null(); isNull || err != nil {
		return 0, false, err
	}
	if c := p.Peek(); c != '-' && (c < '0' || c > '9') {
		return 0, false, p.Unexpected("where a number was expected for " + field)
	}
	at := p.Offset()
	text, err := p.Number()
	if err != nil {
		return 0, false, err
	}
	n, err = strconv.ParseInt(string(text), 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, false, p.Errorf(at, "cannot unmarshal number %s into %s (an integer from %d to %d)", text, field, lo, hi)
	}
	return n, true, nil
}

// intInto reads a Go int field.
func (p *parser) intInto(dst *int, field string) error {
	n, ok, err := p.integer(field, math.MinInt, math.MaxInt)
	if ok {
		*dst = int(n)
	}
	return err
}

func (p *parser) uinteger(dst *uint64, field string) error {
	if isNull, err := p.Null(); isNull || err != nil {
		return err
	}
	if c := p.Peek(); c != '-' && (c < '0' || c > '9') {
		return p.Unexpected("where a number was expected for " + field)
	}
	at := p.Offset()
	text, err := p.Number()
	if err != nil {
		return err
	}
	n, err := strconv.ParseUint(string(text), 10, 64)
	if err != nil {
		return p.Errorf(at, "cannot unmarshal number %s into %s (a non-negative integer)", text, field)
	}
	*dst = n
	return nil
}

// valueMap reads an object of values into *dst.
func (p *parser) valueMap(dst *map[string]graph.Value) error {
	if isNull, err := p.Null(); isNull || err != nil {
		if isNull {
			*dst = nil
		}
		return err
	}
	if *dst == nil {
		*dst = map[string]graph.Value{}
	}
	m := *dst
	return p.Object(func(key []byte) error {
		v, err := p.Value()
		m[p.Intern(key)] = v
		return err
	})
}

func (p *parser) stringList(dst *[]string) error {
	if isNull, err := p.Null(); isNull || err != nil {
		if isNull {
			*dst = nil
		}
		return err
	}
	list := (*dst)[:0]
	err := p.Array(func() error {
		list = grow(list)
		return p.str(&list[len(list)-1])
	})
	if len(list) == 0 {
		list = []string{}
	}
	*dst = list
	return err
}

// grow extends list by one element, reusing the backing array's element
// where there is one (as encoding/json does).
func grow[T any](list []T) []T {
	if len(list) < cap(list) {
		return list[:len(list)+1]
	}
	var zero T
	return append(list, zero)
}

func (p *parser) timestamp(dst *time.Time) error {
	if isNull, err := p.Null(); isNull || err != nil {
		return err
	}
	at := p.Offset()
	b, err := p.StringBytes()
	if err != nil {
		return err
	}
	if err := dst.UnmarshalText(b); err != nil {
		return p.Errorf(at, "time %q: %v", b, err)
	}
	return nil
}

// fieldName matches encoding/json: an exact match first, then a
// case-insensitive one.
func fieldName(key []byte, known ...string) string {
	for _, k := range known {
		if string(key) == k {
			return k
		}
	}
	for _, k := range known {
		if strings.EqualFold(string(key), k) {
			return k
		}
	}
	return ""
}

func (p *parser) state(s *State) error {
	return p.Object(func(key []byte) error {
		switch fieldName(key, "version", "serial", "lineage", "resources", "outputs", "sync") {
		case "version":
			return p.intInto(&s.Version, "version")
		case "serial":
			return p.uinteger(&s.Serial, "serial")
		case "lineage":
			return p.str(&s.Lineage)
		case "resources":
			if s.Resources == nil {
				if done, err := p.parallelResources(s); done {
					return err
				}
			}
			return sliceInto(p, &s.Resources, p.resource)
		case "outputs":
			return mapInto(p, &s.Outputs, p.output)
		case "sync":
			return p.syncInfo(&s.Sync)
		}
		return p.Skip()
	})
}

func (p *parser) syncInfo(dst **SyncInfo) error {
	if isNull, err := p.Null(); isNull || err != nil {
		return err
	}
	info := &SyncInfo{}
	*dst = info
	return p.Object(func(key []byte) error {
		if fieldName(key, "last_resync") == "last_resync" {
			return p.timestamp(&info.LastResync)
		}
		return p.Skip()
	})
}

func (p *parser) output(o *Output) error {
	return p.structInto(func(key []byte) error {
		switch fieldName(key, "value", "sensitive") {
		case "value":
			v, err := p.Value()
			o.Value = v
			return err
		case "sensitive":
			return p.boolean(&o.Sensitive)
		}
		return p.Skip()
	})
}

// parallelMin is the least array size, in bytes, worth splitting.
const parallelMin = 1 << 20

// parallelResources parses a large resources array on up to GOMAXPROCS
// goroutines (all joined before it returns): it finds the elements'
// boundaries with a scan that only follows strings and nesting, then
// parses runs of elements with parsers of their own, each positioned in
// the whole input. It reports done false, having consumed nothing, when
// the array is small, or when anything is wrong with it: the sequential
// parser then reads it and reports the problem exactly as it would have.
func (p *parser) parallelResources(s *State) (done bool, err error) {
	workers := runtime.GOMAXPROCS(0)
	if p.Peek() != '[' || workers < 2 || p.Remaining() < parallelMin {
		return false, nil
	}
	starts, ends, ok := p.ArrayBounds()
	if !ok || len(starts) < 2*workers {
		return false, nil
	}
	res := make([]Resource, len(starts))
	failed := make([]bool, workers)
	per := (len(starts) + workers - 1) / workers
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*per, min((w+1)*per, len(starts))
		if lo >= hi {
			break
		}
		wg.Go(func() {
			q := &parser{*p.Inside()}
			for i := lo; i < hi; i++ {
				q.Seek(starts[i])
				if err := q.resource(&res[i]); err != nil {
					failed[w] = true
					return
				}
				// Only white space may follow an element before its
				// separator.
				if q.SkipSpace(); q.Offset() != ends[i] {
					failed[w] = true
					return
				}
			}
		})
	}
	wg.Wait()
	if slices.Contains(failed, true) {
		return false, nil
	}
	s.Resources = res
	p.Seek(ends[len(ends)-1] + 1)
	return true, nil
}

// sliceInto reads an array into *dst with elem decoding each element.
func sliceInto[T any](p *parser, dst *[]T, elem func(*T) error) error {
	if isNull, err := p.Null(); isNull || err != nil {
		if isNull {
			*dst = nil
		}
		return err
	}
	list := (*dst)[:0]
	err := p.Array(func() error {
		list = grow(list)
		return elem(&list[len(list)-1])
	})
	if len(list) == 0 {
		list = []T{}
	}
	*dst = list
	return err
}

// mapInto reads an object into *dst, each value decoded by elem into a
// fresh zero value.
func mapInto[T any](p *parser, dst *map[string]T, elem func(*T) error) error {
	if isNull, err := p.Null(); isNull || err != nil {
		if isNull {
			*dst = nil
		}
		return err
	}
	if *dst == nil {
		*dst = map[string]T{}
	}
	m := *dst
	return p.Object(func(key []byte) error {
		var v T
		err := elem(&v)
		m[p.Intern(key)] = v
		return err
	})
}

// structInto reads an object into a struct through member; null leaves
// the struct as it is.
func (p *parser) structInto(member func(key []byte) error) error {
	if isNull, err := p.Null(); isNull || err != nil {
		return err
	}
	return p.Object(member)
}

func (p *parser) resource(r *Resource) error {
	return p.structInto(func(key []byte) error {
		switch fieldName(key, "address", "type", "type_chain", "management", "driver", "dependencies", "spec", "sensitive", "derived_by", "set_by_policy", "versions", "feedback") {
		case "address":
			return p.str(&r.Address)
		case "type":
			return p.str(&r.Type)
		case "type_chain":
			return p.stringList(&r.TypeChain)
		case "management":
			m := string(r.Management)
			err := p.str(&m)
			r.Management = graph.Management(m)
			return err
		case "driver":
			return p.driver(&r.Driver)
		case "dependencies":
			return p.stringList(&r.Dependencies)
		case "spec":
			return p.valueMap(&r.Spec)
		case "sensitive":
			return p.stringList(&r.Sensitive)
		case "derived_by":
			return p.str(&r.DerivedBy)
		case "set_by_policy":
			return mapInto(p, &r.SetByPolicy, p.str)
		case "versions":
			return p.versions(&r.Versions)
		case "feedback":
			return p.feedback(&r.Feedback)
		}
		return p.Skip()
	})
}

func (p *parser) versions(v *Versions) error {
	return p.structInto(func(key []byte) error {
		switch fieldName(key, "updated", "enacted", "policed", "changed_by_step", "changed_by_policy") {
		case "updated":
			return p.timestamp(&v.Updated)
		case "enacted":
			return p.timestamp(&v.Enacted)
		case "policed":
			return p.timestamp(&v.Policed)
		case "changed_by_step":
			return p.timestamp(&v.ChangedByStep)
		case "changed_by_policy":
			return p.timestamp(&v.ChangedByPolicy)
		}
		return p.Skip()
	})
}

func (p *parser) driver(d *graph.Driver) error {
	return p.structInto(func(key []byte) error {
		switch fieldName(key, "name", "operations", "options") {
		case "name":
			return p.str(&d.Name)
		case "operations":
			return mapInto(p, &d.Operations, p.operation)
		case "options":
			return p.valueMap(&d.Options)
		}
		return p.Skip()
	})
}

func (p *parser) operation(op *graph.Operation) error {
	return p.structInto(func(key []byte) error {
		switch fieldName(key, "implementation", "dependencies", "digest", "inputs", "sensitive", "outputs", "timeout") {
		case "implementation":
			return p.str(&op.Implementation)
		case "dependencies":
			return p.stringList(&op.Dependencies)
		case "digest":
			return p.str(&op.Digest)
		case "inputs":
			return p.valueMap(&op.Inputs)
		case "sensitive":
			return p.stringList(&op.Sensitive)
		case "outputs":
			return mapInto(p, &op.Outputs, p.str)
		case "timeout":
			n, ok, err := p.integer("timeout", math.MinInt64, math.MaxInt64)
			if ok {
				op.Timeout = time.Duration(n)
			}
			return err
		}
		return p.Skip()
	})
}

func (p *parser) feedback(f *Feedback) error {
	return p.structInto(func(key []byte) error {
		switch fieldName(key, "resolved", "attributes", "signals", "relationships", "instance_id", "status", "backend_code",
			"backend_status", "attempts", "output", "allocations", "extra", "created", "enacted", "last_attempt") {
		case "resolved":
			return p.valueMap(&f.Resolved)
		case "attributes":
			return p.valueMap(&f.Attributes)
		case "signals":
			return p.valueMap(&f.Signals)
		case "relationships":
			return sliceInto(p, &f.Relationships, p.relationship)
		case "instance_id":
			return p.str(&f.InstanceID)
		case "status":
			return p.status(&f.Status)
		case "backend_code":
			return p.intInto(&f.BackendCode, "backend_code")
		case "backend_status":
			return p.str(&f.BackendStatus)
		case "attempts":
			return p.intInto(&f.Attempts, "attempts")
		case "output":
			return p.str(&f.Output)
		case "allocations":
			return sliceInto(p, &f.Allocations, p.allocation)
		case "extra":
			return p.valueMap(&f.Extra)
		case "created":
			return p.timestamp(&f.Created)
		case "enacted":
			return p.timestamp(&f.Enacted)
		case "last_attempt":
			return p.timestamp(&f.LastAttempt)
		}
		return p.Skip()
	})
}

func (p *parser) status(s *Status) error {
	return p.structInto(func(key []byte) error {
		switch fieldName(key, "active", "converging", "failed", "message") {
		case "active":
			return p.boolean(&s.Active)
		case "converging":
			return p.boolean(&s.Converging)
		case "failed":
			return p.boolean(&s.Failed)
		case "message":
			return p.str(&s.Message)
		}
		return p.Skip()
	})
}

func (p *parser) process(pr *Process) error {
	return p.Object(func(key []byte) error {
		switch fieldName(key, "pid", "pgid", "start", "member") {
		case "pid":
			return p.intInto(&pr.PID, "pid")
		case "pgid":
			return p.intInto(&pr.PGID, "pgid")
		case "start":
			return p.str(&pr.Start)
		case "member":
			return p.str(&pr.Member)
		}
		return p.Skip()
	})
}

func (p *parser) relationship(r *Relationship) error {
	return p.structInto(func(key []byte) error {
		switch fieldName(key, "requirement", "index", "target", "attributes") {
		case "requirement":
			return p.str(&r.Requirement)
		case "index":
			return p.intInto(&r.Index, "index")
		case "target":
			return p.str(&r.Target)
		case "attributes":
			return p.valueMap(&r.Attributes)
		}
		return p.Skip()
	})
}

func (p *parser) allocation(a *Allocation) error {
	return p.structInto(func(key []byte) error {
		switch fieldName(key, "provider", "resources") {
		case "provider":
			return p.str(&a.Provider)
		case "resources":
			return mapInto(p, &a.Resources, func(n *int64) error {
				v, _, err := p.integer("an allocation amount", math.MinInt64, math.MaxInt64)
				*n = v
				return err
			})
		}
		return p.Skip()
	})
}

// parseState parses a whole state file; the error carries a byte offset.
func parseState(data []byte) (*State, error) {
	p := &parser{*canonjson.NewReader(data)}
	var s State
	if err := p.state(&s); err != nil {
		return nil, err
	}
	if !p.AtEnd() {
		return nil, p.Errorf(p.Offset(), "data after the end of the state object")
	}
	return &s, nil
}

// parseRecord parses one journal record payload, interning its strings
// in strs when it is not nil (see canonjson.Reader.ShareStrings).
func parseRecord(data []byte, strs map[string]string) (Record, error) {
	p := &parser{*canonjson.NewReader(data)}
	if strs != nil {
		p.ShareStrings(strs)
	}
	var r Record
	err := p.Object(func(key []byte) error {
		switch fieldName(key, "seq", "kind", "address", "action", "attempt", "resource", "removed", "process", "time") {
		case "seq":
			return p.uinteger(&r.Seq, "seq")
		case "kind":
			k := string(r.Kind)
			err := p.str(&k)
			r.Kind = RecordKind(k)
			return err
		case "address":
			return p.str(&r.Address)
		case "action":
			return p.str(&r.Action)
		case "attempt":
			return p.intInto(&r.Attempt, "attempt")
		case "resource":
			if isNull, err := p.Null(); isNull || err != nil {
				if isNull {
					r.Resource = nil
				}
				return err
			}
			if r.Resource == nil {
				r.Resource = &Resource{}
			}
			return p.resource(r.Resource)
		case "removed":
			return p.boolean(&r.Removed)
		case "process":
			if isNull, err := p.Null(); isNull || err != nil {
				return err
			}
			r.Process = &Process{}
			return p.process(r.Process)
		case "time":
			return p.timestamp(&r.Time)
		}
		return p.Skip()
	})
	if err != nil {
		return r, err
	}
	if !p.AtEnd() {
		return r, p.Errorf(p.Offset(), "data after the end of the record")
	}
	return r, nil
}
