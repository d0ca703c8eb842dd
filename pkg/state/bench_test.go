package state

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// BenchmarkWrite10k writes a state of 10,000 resources whose content
// changed (one resource edited per iteration), the way an apply ends.
func BenchmarkWrite10k(b *testing.B) {
	ctx := context.Background()
	f, err := OpenFile(filepath.Join(b.TempDir(), DefaultPath), FileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	s := genState(10000)
	s.Serial, s.Lineage = 0, ""
	if err := f.Write(ctx, s); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		s.Resources[i%len(s.Resources)].Spec["port"] = int64(i)
		if err := f.Write(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(f.seen.snapshotRes.size()), "file-bytes")
}

// BenchmarkRead10k reads back a state of 10,000 resources.
func BenchmarkRead10k(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), DefaultPath)
	f, err := OpenFile(path, FileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	s := genState(10000)
	s.Serial, s.Lineage = 0, ""
	if err := f.Write(ctx, s); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		r, err := OpenFile(path, FileOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Read(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJournalAppend appends 10,000 records from 10 goroutines and
// reports records per second and records per fsync.
func BenchmarkJournalAppend(b *testing.B) {
	ctx := context.Background()
	const writers, perWriter = 10, 1000
	var syncs, records uint64
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		f, err := OpenFile(filepath.Join(b.TempDir(), DefaultPath), FileOptions{})
		if err != nil {
			b.Fatal(err)
		}
		j, err := f.OpenJournal(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				for k := range perWriter {
					r := genResource(w*perWriter + k)
					rec := Record{Kind: RecordIntent, Address: r.Address, Action: "create", Attempt: 1}
					if k%2 == 1 {
						rec = Record{Kind: RecordOutcome, Address: r.Address, Resource: &r}
					}
					if _, err := j.Append(ctx, rec); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		b.StopTimer()
		st := j.Stats()
		syncs += st.Syncs
		records += st.Records
		if err := j.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(records)/float64(syncs), "records/fsync")
	b.ReportMetric(float64(syncs)/float64(b.N), "fsyncs/op")
	_ = fmt.Sprint()
}

// BenchmarkEncode10k measures the encoding alone, without the disk.
func BenchmarkEncode10k(b *testing.B) {
	s := genState(10000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := encodeResources(s.Resources); err != nil {
			b.Fatal(err)
		}
	}
}
