package state

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/xosplan/xosplan/pkg/graph"
)

// TestEncodeResourcesHoldsNoSpareBuffer: the encoding of a state was
// written into buffers of 3 KiB a resource, four times what a resource
// takes, and an apply of 80,000 resources held 245 MB of them for a 57 MB
// state. The pieces are now sized after what was written.
func TestEncodeResourcesHoldsNoSpareBuffer(t *testing.T) {
	// Resources as an apply of the noop driver records them.
	rs := make([]Resource, 5000)
	for i := range rs {
		rs[i] = Resource{Address: fmt.Sprintf("node%05d", i), Type: "tosca.nodes.Root", Management: "managed",
			Driver: graph.Driver{Name: "noop"}, Spec: map[string]graph.Value{"properties": map[string]graph.Value{}}}
	}
	res, err := encodeResources(rs)
	if err != nil {
		t.Fatal(err)
	}
	length, capacity := 0, 0
	for _, p := range res {
		length += len(p)
		capacity += cap(p)
	}
	if capacity > length+length/2 {
		t.Errorf("the encoding holds %d bytes of buffers for %d bytes written", capacity, length)
	}
}

// TestJournalRecordsShareStrings: a journal's records each held their own
// copy of every key and name they repeat ("spec", "feedback", the type,
// the driver), so that replaying the journal of an apply of 80,000
// resources held 260 MB of records. The records a scan holds now share
// the strings they repeat.
func TestJournalRecordsShareStrings(t *testing.T) {
	var data []byte
	data = frameLine(data, []byte(`{"kind":"base","version":1,"lineage":"l","serial":1}`))
	for i := range 2 {
		r := genResource(i)
		line, err := encodeRecord(&Record{Seq: uint64(i + 1), Kind: RecordOutcome, Address: r.Address, Resource: &r})
		if err != nil {
			t.Fatal(err)
		}
		data = frameLine(data, line)
	}
	sc, err := scanJournal(data)
	if err != nil || len(sc.records) != 2 {
		t.Fatalf("scan: %v, %d records", err, len(sc.records))
	}
	a, b := sc.records[0].Resource, sc.records[1].Resource
	if a.Type != b.Type || a.Type == "" {
		t.Fatalf("types %q and %q", a.Type, b.Type)
	}
	if unsafe.StringData(a.Type) != unsafe.StringData(b.Type) || unsafe.StringData(a.Driver.Name) != unsafe.StringData(b.Driver.Name) {
		t.Error("two records hold copies of the same type and driver name")
	}
}
