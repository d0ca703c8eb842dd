// Package nearest measures how far apart two names are, for the "did you
// mean" of an unknown flag (cmd/xosplan) and of an undeclared input
// (pkg/tosca). Each caller keeps its own rule for what is near enough.
package nearest

// Distance is the Levenshtein distance between a and b, counted in
// runes, in O(len(a)·len(b)) time and O(len(b)) space. Callers bound the
// lengths they compare.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
