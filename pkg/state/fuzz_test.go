package state

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode: any input either fails with an error or decodes to a state
// that encodes, and decoding that encoding gives the same bytes again.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "decode", "*.json"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	good, err := Encode(&State{Version: FormatVersion, Serial: 2, Lineage: "l", Resources: []Resource{fullResource(), genResource(1)}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Fuzz(func(t *testing.T, data []byte) {
		compareDecoders(t, data)
		s, err := Decode(data)
		if err != nil {
			return
		}
		once, err := Encode(s)
		if err != nil {
			t.Fatalf("a decoded state does not encode: %v", err)
		}
		s2, err := Decode(once)
		if err != nil {
			t.Fatalf("an encoded state does not decode: %v\n%s", err, once)
		}
		twice, err := Encode(s2)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once, twice) {
			t.Fatalf("encoding is not stable\n%s", firstDifference(once, twice))
		}
	})
}

// FuzzScanJournal: any journal content scans without panicking, and the
// intact prefix it reports scans to the same records.
func FuzzScanJournal(f *testing.F) {
	head := frameLine(nil, []byte(`{"kind":"base","version":1,"lineage":"","serial":0}`))
	r := genResource(1)
	line1, _ := encodeRecordLine(nil, &Record{Seq: 1, Kind: RecordIntent, Address: r.Address, Action: "create"})
	line2, _ := encodeRecordLine(nil, &Record{Seq: 2, Kind: RecordOutcome, Address: r.Address, Resource: &r})
	whole := bytes.Join([][]byte{head, line1, line2}, nil)
	f.Add(whole)
	f.Add(whole[:len(whole)-5])
	f.Add(append(bytes.Clone(whole), "deadbeef {}\n"...))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := scanJournal(data)
		if err != nil {
			return
		}
		if sc.valid+sc.torn != int64(len(data)) {
			t.Fatalf("valid %d + torn %d != %d", sc.valid, sc.torn, len(data))
		}
		again, err := scanJournal(data[:sc.valid])
		if err != nil || again.torn != 0 || len(again.records) != len(sc.records) {
			t.Fatalf("the intact prefix does not rescan cleanly: %v", err)
		}
	})
}

// FuzzParseRecord: any payload parses or fails cleanly, and a parsed
// record survives encoding, framing and scanning.
func FuzzParseRecord(f *testing.F) {
	r := fullResource()
	for _, rec := range []Record{
		{Seq: 1, Kind: RecordIntent, Address: "a", Action: "create", Attempt: 2},
		{Seq: 2, Kind: RecordOutcome, Address: r.Address, Resource: &r},
		{Seq: 3, Kind: RecordOutcome, Address: "gone", Removed: true},
		{Seq: 4, Kind: RecordIntent, Address: "a", Action: "create", Process: &Process{PID: 7, PGID: 7, Start: "b:1"}},
	} {
		line, err := encodeRecordLine(nil, &rec)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(line[crcLen+1 : len(line)-1])
	}
	f.Add([]byte(`{"seq":1,"kind":"intent","address":"a","resource":null,"time":"bad"}`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		rec, err := decodeRecord(payload)
		if err != nil {
			return
		}
		line, err := encodeRecordLine(nil, &rec)
		if err != nil {
			return // a time outside what RFC 3339 can hold
		}
		head := frameLine(nil, []byte(`{"kind":"base","version":1,"lineage":"","serial":0}`))
		sc, err := scanJournal(append(head, line...))
		if err != nil || len(sc.records) != 1 || sc.records[0].Seq != rec.Seq || sc.records[0].Address != rec.Address {
			t.Fatalf("a record does not survive the journal: %v", err)
		}
	})
}
