//go:build unix

package state

import (
	"context"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BenchmarkWrite10k writes a state of 10,000 resources whose content
// changed (one resource edited per iteration), the way an apply ends.
func BenchmarkWrite10k(b *testing.B) {
	ctx := context.Background()
	f, s := writtenState(b, filepath.Join(b.TempDir(), DefaultPath), 10000)
	b.ReportAllocs()
	i := 0
	start := cpuTime()
	for b.Loop() {
		i++
		s.Resources[i%len(s.Resources)].Spec["port"] = int64(i)
		if err := f.Write(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
	b.ReportMetric(float64(f.seen.snapshotRes.size()), "file-bytes")
}

// BenchmarkRead10k reads back a state of 10,000 resources.
func BenchmarkRead10k(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), DefaultPath)
	writtenState(b, path, 10000)
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		r, err := OpenFile(path, FileOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Read(ctx); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// writtenState writes a generated state of n resources to a new state file
// at path, as its first snapshot, and returns the file and the state.
func writtenState(b *testing.B, path string, n int) (*File, *State) {
	b.Helper()
	f, err := OpenFile(path, FileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	s := genState(n)
	s.Serial, s.Lineage = 0, ""
	if err := f.Write(context.Background(), s); err != nil {
		b.Fatal(err)
	}
	return f, s
}

// BenchmarkJournalAppend appends 10,000 records from 10 goroutines and
// reports records per second and records per fsync.
func BenchmarkJournalAppend(b *testing.B) {
	ctx := context.Background()
	const writers, perWriter = 10, 1000
	// The resources exist before the apply; only journaling is timed.
	rs := genState(writers * perWriter).Resources
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
					r := &rs[w*perWriter+k]
					rec := Record{Kind: RecordIntent, Address: r.Address, Action: "create", Attempt: 1}
					if k%2 == 1 {
						rec = Record{Kind: RecordOutcome, Address: r.Address, Resource: r}
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
}

// cpuTime returns the process's user+system CPU time. The machine is
// shared, so wall-clock ns/op varies with the neighbours' load; CPU time
// per op is the steadier figure.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds a cpu-ns/op metric for the loop that started at start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkEncode10k measures the encoding alone, without the disk.
func BenchmarkEncode10k(b *testing.B) {
	s := genState(10000)
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		if _, err := encodeResources(s.Resources); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}
