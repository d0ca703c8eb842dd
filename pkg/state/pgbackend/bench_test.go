//go:build linux

package pgbackend

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/state/statetest"
)

// BenchmarkJournalAppendPostgres appends records to the journal rows of a
// workspace on the loopback test server, from one goroutine (every
// record its own commit: the latency of one) and from ten (group
// commits), and reports records per second and per commit. Skipped
// without the test server.
func BenchmarkJournalAppendPostgres(b *testing.B) {
	for _, writers := range []int{1, 10} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			const perWriter = 500
			ctx := context.Background()
			db := newDatabase(b)
			rs := make([]state.Resource, writers*perWriter)
			for i := range rs {
				rs[i] = statetest.Res(fmt.Sprintf("r%05d", i), int64(i))
			}
			var records, commits uint64
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				st := open(b, db, fmt.Sprintf("w%d", i), Options{})
				if _, err := st.LoadWithJournal(ctx); err != nil {
					b.Fatal(err)
				}
				j, err := st.OpenJournal(ctx)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				var wg sync.WaitGroup
				for w := range writers {
					wg.Go(func() {
						for k := range perWriter {
							r := &rs[w*perWriter+k]
							rec := state.Record{Kind: state.RecordIntent, Address: r.Address, Action: "create", Attempt: 1}
							if k%2 == 1 {
								rec = state.Record{Kind: state.RecordOutcome, Address: r.Address, Resource: r}
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
				stats := j.Stats()
				records += stats.Records
				commits += stats.Syncs
				if err := j.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
			b.ReportMetric(float64(records)/float64(commits), "records/commit")
		})
	}
}
