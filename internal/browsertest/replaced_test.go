package browsertest

import (
	"errors"
	"testing"
)

// TestReplacedKnowsAGoneNode: Click tries again only when the element it
// found was replaced before the click (TestBrowserAdoptAndCheckNeedTheToken
// failed once with "Could not find node with given id (-32000)" while the
// console rendered again), never on another failure.
func TestReplacedKnowsAGoneNode(t *testing.T) {
	for msg, want := range map[string]bool{
		"Could not find node with given id (-32000)": true,
		"No node with given id found (-32000)":       true,
		"Node is detached from document (-32000)":    true,
		"context deadline exceeded":                  false,
		"waiting for selector `#x`: not visible":     false,
	} {
		if got := replaced(errors.New(msg)); got != want {
			t.Errorf("replaced(%q) = %v, want %v", msg, got, want)
		}
	}
}
