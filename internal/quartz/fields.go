package quartz

import (
	"fmt"
	"strconv"
	"strings"
)

// cronField describes one field of a Quartz cron expression.
type cronField struct {
	name     string
	min, max int
	names    []string // names for min, min+1, …
	question bool     // accepts "?"
	special  func(string) bool
}

var (
	months   = []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}
	weekdays = []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}
)

// quartzFields lists the fields in order: seconds first, year optional.
func quartzFields() []cronField {
	return []cronField{
		{name: "seconds", max: 59},
		{name: "minutes", max: 59},
		{name: "hours", max: 23},
		{name: "day-of-month", min: 1, max: 31, question: true, special: domSpecial},
		{name: "month", min: 1, max: 12, names: months},
		{name: "day-of-week", min: 1, max: 7, names: weekdays, question: true, special: dowSpecial},
		{name: "year", min: 1970, max: 2099},
	}
}

// domSpecial accepts L, LW, L-n and nW.
func domSpecial(s string) bool {
	switch {
	case s == "L" || s == "LW":
		return true
	case strings.HasPrefix(s, "L-"):
		n, err := strconv.Atoi(s[2:])
		return err == nil && n >= 0 && n <= 30
	case strings.HasSuffix(s, "W"):
		n, err := strconv.Atoi(s[:len(s)-1])
		return err == nil && n >= 1 && n <= 31
	}
	return false
}

// dowSpecial accepts L, nL and n#k.
func dowSpecial(s string) bool {
	day := func(d string) bool {
		if n, err := strconv.Atoi(d); err == nil {
			return n >= 1 && n <= 7
		}
		for _, w := range weekdays {
			if strings.EqualFold(d, w) {
				return true
			}
		}
		return false
	}
	switch {
	case s == "L":
		return true
	case strings.HasSuffix(s, "L"):
		return day(s[:len(s)-1])
	case strings.Contains(s, "#"):
		d, k, _ := strings.Cut(s, "#")
		n, err := strconv.Atoi(k)
		return day(d) && err == nil && n >= 1 && n <= 5
	}
	return false
}

// Check validates a Quartz cron expression and returns how many times it
// fires in a minute in which it fires at all (the number of distinct
// seconds it names).
func Check(expr string) (perMinute int, err error) {
	fields := strings.Fields(expr)
	specs := quartzFields()
	if len(fields) != 6 && len(fields) != 7 {
		return 0, fmt.Errorf("expected 6 or 7 fields (seconds minutes hours day-of-month month day-of-week [year]), found %d", len(fields))
	}
	if (fields[3] == "?") == (fields[5] == "?") {
		return 0, fmt.Errorf("exactly one of day-of-month (%q) and day-of-week (%q) must be \"?\"", fields[3], fields[5])
	}
	for i, f := range fields {
		n, err := specs[i].count(f)
		if err != nil {
			return 0, fmt.Errorf("%s field %q: %w", specs[i].name, f, err)
		}
		if i == 0 {
			perMinute = n
		}
	}
	return perMinute, nil
}

// count validates one field and returns the number of distinct values it
// selects (1 for the special day forms).
func (f cronField) count(s string) (int, error) {
	if s == "?" {
		if !f.question {
			return 0, fmt.Errorf("\"?\" is allowed only in day-of-month and day-of-week")
		}
		return 1, nil
	}
	seen := map[int]bool{}
	for _, item := range strings.Split(s, ",") {
		if f.special != nil && f.special(strings.ToUpper(item)) {
			seen[-1] = true
			continue
		}
		if err := f.item(item, seen); err != nil {
			return 0, err
		}
	}
	return len(seen), nil
}

func (f cronField) item(item string, seen map[int]bool) error {
	rng, stepText, hasStep := strings.Cut(item, "/")
	step := 1
	if hasStep {
		n, err := strconv.Atoi(stepText)
		if err != nil || n < 1 || n > f.max-f.min+1 {
			return fmt.Errorf("step %q must be a number from 1 to %d", stepText, f.max-f.min+1)
		}
		step = n
	}
	lo, hi := f.min, f.max
	switch {
	case rng == "*":
	case strings.Contains(rng, "-"):
		a, b, _ := strings.Cut(rng, "-")
		var err error
		if lo, err = f.value(a); err != nil {
			return err
		}
		if hi, err = f.value(b); err != nil {
			return err
		}
		if hi < lo {
			hi += f.max - f.min + 1 // Quartz ranges wrap around (FRI-MON)
		}
	default:
		v, err := f.value(rng)
		if err != nil {
			return err
		}
		lo = v
		if !hasStep {
			hi = v
		}
	}
	for v := lo; v <= hi; v += step {
		seen[f.min+(v-f.min)%(f.max-f.min+1)] = true
	}
	return nil
}

func (f cronField) value(s string) (int, error) {
	for i, n := range f.names {
		if strings.EqualFold(s, n) {
			return f.min + i, nil
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < f.min || n > f.max {
		if f.names != nil {
			return 0, fmt.Errorf("%q is not a number from %d to %d or a name such as %s", s, f.min, f.max, f.names[0])
		}
		return 0, fmt.Errorf("%q is not a number from %d to %d", s, f.min, f.max)
	}
	return n, nil
}
