package judging_test

import (
	"testing"

	"github.com/conform-kit/conform/validate/judging"
)

func TestIDFormOf(t *testing.T) {
	tests := []struct {
		rests []string
		want  string
	}{
		{[]string{"0123456789abcdefghijKL"}, "[0-9A-Za-z]{22}"},
		{[]string{"gJqPfXwRz5nVd8yHmKcTb", "gJqPfXwRz5nVd8yHmKcTbL"}, "[0-9A-Za-z]{21,22}"},
		{[]string{"00ff", "a1b2c3"}, "[0-9a-z]{4,6}"},
		{[]string{"abc_1"}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := judging.IDFormOf(tt.rests...); got != tt.want {
			t.Errorf("IDFormOf(%q) = %q, want %q", tt.rests, got, tt.want)
		}
	}
	// What IDFormOf infers, the profile accepts and the ids match.
	v := newJudge(t)
	p, err := v.DecodeProfile([]byte(`{"id_form": "` + judging.IDFormOf("gJqPfXwRz5nVd8yHmKcTb", "0123456789abcdefghijKL") + `"}`))
	if err != nil {
		t.Fatal(err)
	}
	re, _ := p.IDPattern("AU")
	if !re.MatchString("AUgJqPfXwRz5nVd8yHmKcTb") || !re.MatchString("AU0123456789abcdefghijKL") {
		t.Errorf("inferred form %s does not match its ids", p.IDForm)
	}
}

func TestTimestampPrecisionOf(t *testing.T) {
	tests := []struct {
		ts     []string
		digits int
		ok     bool
	}{
		{[]string{"2026-01-02T03:04:05.123Z", "2026-01-02T03:04:06.000Z"}, 3, true},
		{[]string{"2026-01-02T03:04:05.123456Z"}, 6, true},
		{[]string{"2026-01-02T03:04:05.12Z", "2026-01-02T03:04:05.123Z"}, 0, true},
		{[]string{"2026-01-02T03:04:05Z"}, 0, false},
		{nil, 0, false},
	}
	for _, tt := range tests {
		d, ok := judging.TimestampPrecisionOf(tt.ts...)
		if d != tt.digits || ok != tt.ok {
			t.Errorf("TimestampPrecisionOf(%q) = %d, %v, want %d, %v", tt.ts, d, ok, tt.digits, tt.ok)
		}
	}
}
