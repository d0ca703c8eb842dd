package graph

import "testing"

func TestRelationshipOperationKey(t *testing.T) {
	for _, c := range []struct {
		op, req string
		index   int
		unique  bool
		key     string
	}{
		{"add_target", "db", 0, true, "Configure.add_target"},
		{"add_target", "db", 3, false, "Configure.add_target@db[3]"},
		{"pre_configure_source", "a[1]@b", 12, false, "Configure.pre_configure_source@a[1]@b[12]"},
	} {
		key := RelationshipOperationKey(c.op, c.req, c.index, c.unique)
		if key != c.key {
			t.Errorf("RelationshipOperationKey(%q, %q, %d, %v) = %q, want %q", c.op, c.req, c.index, c.unique, key, c.key)
		}
		op, req, index, ok := ParseRelationshipOperationKey(key)
		wantReq, wantIndex := c.req, c.index
		if c.unique {
			wantReq, wantIndex = "", 0
		}
		if !ok || op != c.op || req != wantReq || index != wantIndex {
			t.Errorf("ParseRelationshipOperationKey(%q) = %q, %q, %d, %v", key, op, req, index, ok)
		}
	}
	for _, key := range []string{"Standard.create", "Configure.", "Configure.x@db", "Configure.x@db[]", "Configure.x@db[-1]", "Configure.x@db[01]", "Configure.x@[0]", "Configure.@db[0]"} {
		if _, _, _, ok := ParseRelationshipOperationKey(key); ok {
			t.Errorf("ParseRelationshipOperationKey(%q) is ok", key)
		}
	}
}
