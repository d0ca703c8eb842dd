package views

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/termsafe"
)

// Invoke is the view of `xosplan invoke`: each result of the command as it
// arrives, as a line of text or (--json) one JSON object per line.
type Invoke interface {
	// Result renders one result line of the script ("KIND JSON"); it is
	// safe for concurrent use.
	Result(line string)
	// Output shows the output of a command that failed (people only: the
	// JSON view leaves it to the error).
	Output(text string)
	// NoResult says that the command ran without reporting a final
	// result, which stays pending for a later script (people only: for a
	// machine, no "result" line says it).
	NoResult(addr, command string)
}

// NewInvoke returns the JSON view (json) or the human one.
func NewInvoke(json bool, s *Streams) Invoke {
	if json {
		return &invokeJSON{s: s}
	}
	return &invokeText{s: s}
}

// results serializes the result lines, which arrive from the script's
// goroutine, and splits each into its kind and its JSON body.
type results struct{ mu sync.Mutex }

func (r *results) each(line string, write func(kind, body string)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	kind, body, _ := strings.Cut(line, " ")
	write(kind, body)
}

type invokeText struct {
	s *Streams
	results
}

func (v *invokeText) Result(line string) {
	v.each(line, func(kind, body string) {
		fmt.Fprintf(v.s.Stdout, "%s: %s\n", termsafe.String(kind), termsafe.String(body))
	})
}

func (v *invokeText) Output(text string) {
	if text != "" {
		fmt.Fprintf(v.s.Stderr, "%s\n", termsafe.Lines(strings.TrimRight(text, "\n")))
	}
}

func (v *invokeText) NoResult(addr, command string) {
	fmt.Fprintf(v.s.Stdout, "%s: %s ran; its result is pending, for a later health check to report (invoke --wait waits for it)\n", termsafe.String(addr), termsafe.String(command))
}

type invokeJSON struct {
	s *Streams
	results
}

// Result writes {"type": KIND, "result": JSON}; a result that is not JSON
// is left out rather than breaking the stream.
func (v *invokeJSON) Result(line string) {
	v.each(line, func(kind, body string) {
		if json.Valid([]byte(body)) {
			fmt.Fprintf(v.s.Stdout, "{\"type\":%q,\"result\":%s}\n", kind, body)
		}
	})
}

func (v *invokeJSON) Output(string) {}

func (v *invokeJSON) NoResult(string, string) {}
