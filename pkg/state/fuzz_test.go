package state

import (
	"bytes"
	"errors"
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
		rec, err := decodeRecord(payload, nil)
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

// FuzzJournalCorruption damages a valid journal of n records (line 1 is
// the header, line k+1 record k) in the middle: at is where the damage
// starts, span how many bytes it covers, and mask what they are XORed
// with (0 zeroes them, as a lost disk block does); cut instead truncates
// the journal at at. The property: the scan never panics; it either reads
// every record before the first damaged line and nothing else, which is
// only allowed when no intact line follows the damage (a torn LAST
// record), or it fails with a *JournalDamageError naming that first
// damaged line. It never drops a complete record that precedes intact
// ones.
func FuzzJournalCorruption(f *testing.F) {
	f.Add(uint8(10), uint16(900), uint8(1), byte(0x04), false) // a flipped byte in the middle
	f.Add(uint8(10), uint16(65000), uint8(1), byte(0x01), false)
	f.Add(uint8(3), uint16(5), uint8(1), byte(0x20), false)   // the header's checksum
	f.Add(uint8(6), uint16(300), uint8(200), byte(0), false)  // zeroed bytes
	f.Add(uint8(6), uint16(700), uint8(0), byte(0), true)     // a torn write
	f.Add(uint8(1), uint16(0), uint8(255), byte(0xff), false) // everything
	f.Fuzz(func(t *testing.T, n uint8, at uint16, span uint8, mask byte, cut bool) {
		head := frameLine(nil, []byte(`{"kind":"base","version":1,"lineage":"l","serial":1}`))
		data := bytes.Clone(head)
		starts := []int{0}
		var want []Record
		for i := range int(n%24) + 1 {
			r := genResource(i)
			rec := Record{Seq: uint64(i + 1), Kind: RecordIntent, Address: r.Address, Action: "create", Attempt: 1}
			if i%2 == 1 {
				rec = Record{Seq: uint64(i + 1), Kind: RecordOutcome, Address: r.Address, Resource: &r}
			}
			starts = append(starts, len(data))
			var err error
			if data, err = encodeRecordLine(data, &rec); err != nil {
				t.Fatal(err)
			}
			want = append(want, rec)
		}
		from := int(at) % len(data)
		var to int // the damaged bytes are data[from:to]
		if cut {
			data, to = data[:from], len(data)
		} else {
			to = min(from+max(int(span), 1), len(data))
			for i := from; i < to; i++ {
				if mask == 0 {
					data[i] = 0
				} else {
					data[i] ^= mask
				}
			}
		}
		first := 0 // the line holding the first damaged byte
		for first+1 < len(starts) && starts[first+1] <= from {
			first++
		}
		// An intact line survives the damage when it and the newline
		// before it are untouched.
		survivor := false
		for _, s := range starts[1:] {
			survivor = survivor || s > to
		}
		if cut {
			survivor = false
		}

		sc, err := scanJournal(data)
		if err != nil {
			var dmg *JournalDamageError
			if !errors.As(err, &dmg) || dmg.Line != first+1 || dmg.Offset != int64(starts[first]) {
				t.Fatalf("error %v, want a *JournalDamageError at line %d (offset %d)", err, first+1, starts[first])
			}
			if !survivor {
				t.Fatalf("damage with no intact line after it was reported, not read as a torn tail: %v", err)
			}
			return
		}
		if survivor {
			t.Fatalf("damage at line %d that intact lines follow was read as a torn tail", first+1)
		}
		kept := max(first-1, 0) // records before the damaged line
		if len(sc.records) != kept {
			t.Fatalf("%d records read, want the %d before the damaged line %d", len(sc.records), kept, first+1)
		}
		for i, r := range sc.records {
			if r.Seq != want[i].Seq || r.Kind != want[i].Kind || r.Address != want[i].Address {
				t.Fatalf("record %d read as %+v, want %+v", i+1, r, want[i])
			}
		}
		if sc.valid != int64(starts[first]) {
			t.Fatalf("intact prefix %d bytes, want %d", sc.valid, starts[first])
		}
	})
}
