package sync

import (
	stdsync "sync"
	"time"
)

// fakeClock is a Clock whose time moves only when a test advances it.
type fakeClock struct {
	mu     stdsync.Mutex
	now    time.Time
	timers []*fakeTimer
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) NewTimer(d time.Duration) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), ch: make(chan time.Time, 1)}
	if d <= 0 {
		t.ch <- c.now
		t.fired = true
	} else {
		c.timers = append(c.timers, t)
	}
	return t
}

// set moves the time to at and fires the timers due by then.
func (c *fakeClock) set(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = at
	keep := c.timers[:0]
	for _, t := range c.timers {
		if t.fired {
			continue
		}
		if !t.at.After(at) {
			t.fired = true
			t.ch <- at
			continue
		}
		keep = append(keep, t)
	}
	c.timers = keep
}

type fakeTimer struct {
	c     *fakeClock
	at    time.Time
	ch    chan time.Time
	fired bool
}

func (t *fakeTimer) C() <-chan time.Time { return t.ch }

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.fired
	t.fired = true
	return was
}
