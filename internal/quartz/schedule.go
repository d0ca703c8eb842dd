package quartz

import (
	"strconv"
	"strings"
	"time"
)

// Schedule is a parsed Quartz cron expression, ready to say when it fires
// next.
type Schedule struct {
	// fields are the sets of seconds, minutes, hours, days of the month,
	// months, days of the week (1 = Sunday) and years the expression
	// names; a nil year set is any year.
	fields [7]map[int]bool
	// domSpecial and dowSpecial are the special day forms (L, LW, L-n,
	// nW; L, nL, n#k), upper case.
	domSpecial, dowSpecial []string
	// anyDOM and anyDOW are "?": the other day field decides.
	anyDOM, anyDOW bool
}

// Parse parses a Quartz cron expression (6 or 7 fields, seconds first),
// with the checks of Check.
func Parse(expr string) (*Schedule, error) {
	if _, err := Check(expr); err != nil {
		return nil, err
	}
	s := &Schedule{}
	specs := quartzFields()
	for i, f := range strings.Fields(expr) {
		spec := specs[i]
		if f == "?" {
			s.anyDOM, s.anyDOW = s.anyDOM || i == 3, s.anyDOW || i == 5
			continue
		}
		seen := map[int]bool{}
		for _, item := range strings.Split(f, ",") {
			up := strings.ToUpper(item)
			if spec.special != nil && spec.special(up) {
				if i == 3 {
					s.domSpecial = append(s.domSpecial, up)
				} else {
					s.dowSpecial = append(s.dowSpecial, up)
				}
				continue
			}
			// Check accepted every item.
			_ = spec.item(item, seen)
		}
		s.fields[i] = seen
	}
	return s, nil
}

// Next returns the first time after t (to the second, in t's location) at
// which the schedule fires, or the zero time when it never fires again
// before the year 2100, the last Quartz knows.
func (s *Schedule) Next(t time.Time) time.Time {
	t = t.Truncate(time.Second).Add(time.Second)
	loc := t.Location()
	sec, minute, hour, month, year := s.fields[0], s.fields[1], s.fields[2], s.fields[4], s.fields[6]
	// Each step moves to the start of the next second, minute, hour, day,
	// month or year that could match: at most a few hundred thousand
	// steps up to 2099 for a schedule that names a far day.
	for t.Year() <= 2099 {
		y, mo, d := t.Date()
		h, mi, se := t.Clock()
		switch {
		case year != nil && !year[y]:
			t = time.Date(y+1, 1, 1, 0, 0, 0, 0, loc)
		case !month[int(mo)]:
			t = time.Date(y, mo+1, 1, 0, 0, 0, 0, loc)
		case !s.day(t):
			t = time.Date(y, mo, d+1, 0, 0, 0, 0, loc)
		case !hour[h]:
			t = time.Date(y, mo, d, h+1, 0, 0, 0, loc)
		case !minute[mi]:
			t = time.Date(y, mo, d, h, mi+1, 0, 0, loc)
		case !sec[se]:
			t = t.Add(time.Second)
		default:
			return t
		}
	}
	return time.Time{}
}

// day reports whether the schedule's day fields accept t's day.
func (s *Schedule) day(t time.Time) bool {
	if s.anyDOW {
		return s.fields[3][t.Day()] || s.domMatch(t)
	}
	return s.fields[5][int(t.Weekday())+1] || s.dowMatch(t)
}

func lastDay(t time.Time) int {
	return time.Date(t.Year(), t.Month()+1, 0, 0, 0, 0, 0, t.Location()).Day()
}

// nearestWeekday is the weekday of t's month nearest to day n (Quartz's
// nW: it never leaves the month).
func nearestWeekday(t time.Time, n int) int {
	last := lastDay(t)
	n = min(n, last)
	switch time.Date(t.Year(), t.Month(), n, 0, 0, 0, 0, t.Location()).Weekday() {
	case time.Saturday:
		if n == 1 {
			return 3
		}
		return n - 1
	case time.Sunday:
		if n == last {
			return n - 2
		}
		return n + 1
	}
	return n
}

func (s *Schedule) domMatch(t time.Time) bool {
	d, last := t.Day(), lastDay(t)
	for _, sp := range s.domSpecial {
		switch {
		case sp == "L":
			if d == last {
				return true
			}
		case sp == "LW":
			if d == nearestWeekday(t, last) {
				return true
			}
		case strings.HasPrefix(sp, "L-"):
			if n, _ := strconv.Atoi(sp[2:]); d == last-n {
				return true
			}
		case strings.HasSuffix(sp, "W"):
			if n, _ := strconv.Atoi(sp[:len(sp)-1]); d == nearestWeekday(t, n) {
				return true
			}
		}
	}
	return false
}

func (s *Schedule) dowMatch(t time.Time) bool {
	d, wd := t.Day(), int(t.Weekday())+1
	weekday := func(text string) int {
		if n, err := strconv.Atoi(text); err == nil {
			return n
		}
		for i, w := range weekdays {
			if w == text {
				return i + 1
			}
		}
		return 0
	}
	for _, sp := range s.dowSpecial {
		switch {
		case sp == "L":
			if wd == 7 {
				return true
			}
		case strings.HasSuffix(sp, "L"):
			if weekday(sp[:len(sp)-1]) == wd && d+7 > lastDay(t) {
				return true
			}
		case strings.Contains(sp, "#"):
			x, k, _ := strings.Cut(sp, "#")
			if n, _ := strconv.Atoi(k); weekday(x) == wd && (d-1)/7+1 == n {
				return true
			}
		}
	}
	return false
}
