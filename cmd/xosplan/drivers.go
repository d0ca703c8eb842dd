package main

import (
	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/graph"
)

// unitGraphs lists the graphs of the units res compiled.
func unitGraphs(res config.Result) []*graph.Graph {
	out := make([]*graph.Graph, 0, len(res.Units))
	for _, u := range res.Units {
		out = append(out, u.Graph)
	}
	return out
}
