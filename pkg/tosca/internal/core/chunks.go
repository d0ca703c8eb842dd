package core

// Chunks hands out runs of T from chunks it allocates, so that many
// short runs (a template's requirement assignments) cost one allocation
// a chunk; a run longer than a quarter of a chunk has its own. The zero
// value is ready to use. Issue 25 (the compile after the parse, rows 1
// and 4) needs it: both compilers take their templates' requirement
// assignments from it.
type Chunks[T any] struct{ buf []T }

// Take returns a run of n zero T, capped at n so that appending to it
// moves it rather than writing over the next run.
func (ch *Chunks[T]) Take(n int) []T {
	const chunkLen = 512
	if n > chunkLen/4 {
		return make([]T, n)
	}
	if len(ch.buf)+n > cap(ch.buf) {
		ch.buf = make([]T, 0, chunkLen)
	}
	at := len(ch.buf)
	ch.buf = ch.buf[:at+n]
	return ch.buf[at : at+n : at+n]
}
