package graphview

import _ "embed"

// CSS is the style sheet that colours a drawing: the classes st-* (the
// console's statuses) and act-* (a plan's actions) on nodes and legend
// swatches.
//
//go:embed assets/graph.css
var CSS string
