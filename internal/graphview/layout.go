package graphview

import (
	"cmp"
	"slices"
)

// Sizes of a drawn node and the gaps between them, in SVG user units.
const (
	NodeWidth  = 210
	NodeHeight = 40
	columnGap  = 70
	rowGap     = 14
	margin     = 10
	// sweeps is how many down-and-up barycentre passes Order makes.
	sweeps = 4
)

// Layout is a layered drawing of a graph of n nodes: Layer[i] is node i's
// column (0 holds the nodes that depend on nothing), Row[i] its position
// in the column, X and Y its top-left corner; Width and Height bound the
// drawing.
type Layout struct {
	Layer, Row    []int
	X, Y          []int
	Width, Height int
}

// Layers returns, for the graph whose node i depends on deps[i], each
// node's layer: one more than the highest layer of what it depends on, 0
// for a node that depends on nothing. Nodes on a cycle (which a compiled
// configuration has not, but a recorded state may) go one layer above
// everything else. O(V+E).
func Layers(deps [][]int) []int {
	n := len(deps)
	layer := make([]int, n)
	pending := make([]int, n)
	dependents := reverse(deps)
	queue := make([]int, 0, n)
	for i := range deps {
		pending[i] = len(deps[i])
		if pending[i] == 0 {
			queue = append(queue, i)
		}
	}
	top, done := 0, 0
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		done++
		top = max(top, layer[i])
		for _, d := range dependents[i] {
			layer[d] = max(layer[d], layer[i]+1)
			if pending[d]--; pending[d] == 0 {
				queue = append(queue, d)
			}
		}
	}
	if done < n {
		for i := range pending {
			if pending[i] > 0 {
				layer[i] = top + 1
			}
		}
	}
	return layer
}

// reverse returns, for each node of deps, the nodes that depend on it.
func reverse(deps [][]int) [][]int {
	out := make([][]int, len(deps))
	for i, ds := range deps {
		for _, d := range ds {
			out[d] = append(out[d], i)
		}
	}
	return out
}

// Lay lays out the graph whose node i depends on deps[i] (indices in
// [0, len(deps)); a node's dependencies should be unique): layers by
// Layers, rows by barycentre sweeps that start from index order, so the
// same graph is always drawn the same way.
func Lay(deps [][]int) Layout {
	n := len(deps)
	layer := Layers(deps)
	dependents := reverse(deps)
	depth := 0
	for _, l := range layer {
		depth = max(depth, l+1)
	}
	cols := make([][]int, depth)
	for i := 0; i < n; i++ {
		cols[layer[i]] = append(cols[layer[i]], i)
	}
	row := make([]int, n)
	setRows := func(col []int) {
		for r, i := range col {
			row[i] = r
		}
	}
	for _, col := range cols {
		setRows(col)
	}
	bary := make([]float64, n)
	// sortBy orders col by the mean row of each node's neighbours (those
	// in other columns), keeping a node without any where it is.
	sortBy := func(col []int, near [][]int) {
		for _, i := range col {
			sum, k := 0, 0
			for _, j := range near[i] {
				if layer[j] != layer[i] {
					sum += row[j]
					k++
				}
			}
			if k == 0 {
				bary[i] = float64(row[i])
			} else {
				bary[i] = float64(sum) / float64(k)
			}
		}
		slices.SortStableFunc(col, func(a, b int) int { return cmp.Compare(bary[a], bary[b]) })
		setRows(col)
	}
	for s := 0; s < sweeps; s++ {
		for l := 1; l < depth; l++ {
			sortBy(cols[l], deps)
		}
		for l := depth - 2; l >= 0; l-- {
			sortBy(cols[l], dependents)
		}
	}
	out := Layout{Layer: layer, Row: row, X: make([]int, n), Y: make([]int, n)}
	tallest := 0
	for _, col := range cols {
		tallest = max(tallest, len(col))
	}
	for i := 0; i < n; i++ {
		out.X[i] = margin + layer[i]*(NodeWidth+columnGap)
		out.Y[i] = margin + row[i]*(NodeHeight+rowGap)
	}
	out.Width = 2*margin + max(depth, 1)*(NodeWidth+columnGap) - columnGap
	out.Height = 2*margin + max(tallest, 1)*(NodeHeight+rowGap) - rowGap
	return out
}

// Pages splits the graph whose node i depends on deps[i] into pages of at
// most size nodes (size < 1 means one page): its weakly connected parts,
// in the order of their first node, are packed onto pages whole; a part
// larger than size is cut, in dependency order (layer, then index), into
// pages of its own. Each page lists its nodes in increasing order. O(V+E
// + V·log V).
func Pages(deps [][]int, size int) [][]int {
	n := len(deps)
	if n == 0 {
		return nil
	}
	if size < 1 || n <= size {
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		return [][]int{all}
	}
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for i, ds := range deps {
		for _, d := range ds {
			a, b := find(i), find(d)
			if a != b {
				parent[max(a, b)] = min(a, b)
			}
		}
	}
	// Parts in the order of their first (lowest) node.
	partOf := map[int]int{}
	var parts [][]int
	for i := 0; i < n; i++ {
		r := find(i)
		p, ok := partOf[r]
		if !ok {
			p = len(parts)
			partOf[r] = p
			parts = append(parts, nil)
		}
		parts[p] = append(parts[p], i)
	}
	var layer []int
	var pages [][]int
	var cur []int
	flush := func() {
		if len(cur) > 0 {
			slices.Sort(cur)
			pages = append(pages, cur)
			cur = nil
		}
	}
	for _, part := range parts {
		switch {
		case len(part) > size:
			flush()
			if layer == nil {
				layer = Layers(deps)
			}
			slices.SortFunc(part, func(a, b int) int { return cmp.Or(cmp.Compare(layer[a], layer[b]), cmp.Compare(a, b)) })
			for len(part) > 0 {
				k := min(size, len(part))
				cur = slices.Clone(part[:k])
				part = part[k:]
				flush()
			}
		case len(cur)+len(part) > size:
			flush()
			cur = append(cur, part...)
		default:
			cur = append(cur, part...)
		}
	}
	flush()
	return pages
}

// Induced returns the dependencies among nodes alone (a page), renumbered
// by the position of each node in nodes, which must be sorted.
func Induced(deps [][]int, nodes []int) [][]int {
	pos := make(map[int]int, len(nodes))
	for k, i := range nodes {
		pos[i] = k
	}
	out := make([][]int, len(nodes))
	for k, i := range nodes {
		for _, d := range deps[i] {
			if j, ok := pos[d]; ok {
				out[k] = append(out[k], j)
			}
		}
	}
	return out
}

// MaxPageNodes is how many nodes one page of the console's graph draws.
const MaxPageNodes = 400
