package executor

import (
	"context"
	"fmt"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// OutputStore is the part of a state backend RecordOutputs uses.
type OutputStore interface {
	Read(ctx context.Context) (*state.State, error)
	Write(ctx context.Context, s *state.State) error
}

// RecordOutputs records in the state the outputs of g (the configuration
// just applied) as they resolve against it now (ResolveOutputs), replacing
// those of the last apply: an apply or destroy that succeeded calls it.
// A state that holds no resource any more (everything destroyed) keeps no
// output, as Terraform's does not; nor does a nil g. It returns the
// outputs recorded; one that cannot be resolved is left out and named in
// missing. The state is written only when its outputs change.
func RecordOutputs(ctx context.Context, st OutputStore, g *graph.Graph) (values map[string]Output, missing []string, err error) {
	cur, err := st.Read(ctx)
	if err != nil {
		return nil, nil, err
	}
	var recorded map[string]state.Output
	if g != nil && len(cur.Resources) > 0 {
		values, missing = ResolveOutputs(g, cur)
		for name, o := range values {
			if recorded == nil {
				recorded = make(map[string]state.Output, len(values))
			}
			recorded[name] = state.Output(o)
		}
	}
	cur.Outputs = recorded
	if g != nil {
		recordPoliced(cur, g.Policed)
	}
	if err := st.Write(ctx, cur); err != nil {
		return nil, nil, fmt.Errorf("recording the outputs: %w", err)
	}
	return values, missing, nil
}

// recordPoliced records in s the version of each resource the model
// policies ran on (XOS's policed): max(updated, the changed_by_step they
// saw), for the resources they read (policed, the goal's Graph.Policed).
// A step that changed a resource in the apply since leaves it later than
// policed: the policies that read feedback must run again
// (state.Versions.NeedsPolicy).
func recordPoliced(s *state.State, policed map[string]graph.PolicedRead) {
	for addr, pr := range policed {
		r, ok := s.Lookup(addr)
		if !ok {
			continue
		}
		v := r.CurrentVersions()
		v.Policed = state.Latest(v.Policed, v.Updated, pr.Step)
		r.Versions = v
	}
}
