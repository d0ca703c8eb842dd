// Package graphview draws a dependency graph as SVG for the pages xosplan
// serves and writes: the synchronizer's console (pkg/sync) and the HTML
// plan (plan --html-out).
//
// The layout is computed here, in Go, rather than by a graph layout
// library from npm run in the page. The graphs are DAGs whose dependency
// order xosplan knows already, and a layered (Sugiyama-style) layout of a
// DAG needs only three steps: a layer per node (the longest dependency
// chain below it, Layers), an order within each layer that keeps edges
// short and uncrossed (barycentre sweeps, Order), and coordinates (a
// column per layer, a row per position). Computed in Go it costs
// O(sweeps·(V+E) + V·log V), runs where the data is, serves a page that
// needs no script to show the graph (the HTML plan has none), is tested
// and benchmarked with the rest, and vendors nothing: no built file to
// audit and rebuild, no licence to carry. What it leaves out — dummy
// nodes for edges that span several layers, crossing minimisation beyond
// the sweeps — matters little at the sizes a page can show.
//
// Pages bounds what one page draws: weakly connected parts of the graph
// are packed onto pages of at most a given number of nodes, a part too big
// for one page is cut in dependency order, and each page is laid out on
// its own. At 10,000 resources the console draws one page of at most
// MaxPageNodes; the others are a click (or a search) away.
//
// SVG renders a laid-out page: every node a link (keyboard-focusable, with
// an accessible name saying its address, type and status) whose class
// carries its status or action, so that a style sheet colours it and a
// script can recolour it without drawing again. The output contains no
// style attributes, scripts or event handlers, so a Content-Security-Policy
// that forbids them all lets it through.
package graphview
