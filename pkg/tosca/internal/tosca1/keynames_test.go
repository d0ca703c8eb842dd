package tosca1

import (
	"testing"

	"github.com/xosplan/xosplan/pkg/tosca/internal/values"
)

func TestPrimitiveTypesAreWhatDefinitionsAccept(t *testing.T) {
	for _, p := range values.Primitives() {
		if !isPrimitive(p) {
			t.Errorf("%q is not a type a definition accepts", p)
		}
	}
}
