package ledger

import (
	"encoding/json"
	"fmt"
	"time"
)

// Encoding responses: timestamps in the API's layout and JSON bodies.

// TimeLayout renders timestamps as RFC 3339 UTC with fractional seconds and Z.
const TimeLayout = "2006-01-02T15:04:05.000000Z"

// JSONTime is a timestamp that always renders with fractional seconds in UTC.
type JSONTime time.Time

// MarshalJSON renders the timestamp in timeLayout.
func (t JSONTime) MarshalJSON() ([]byte, error) {
	return t.AppendJSON(make([]byte, 0, len(TimeLayout)+2)), nil
}

// AppendJSON appends the timestamp as a JSON string in TimeLayout.
func (t JSONTime) AppendJSON(b []byte) []byte {
	b = append(b, '"')
	b = AppendTime(b, time.Time(t))
	return append(b, '"')
}

// AppendTime appends t in timeLayout: the bytes AppendFormat writes, digit
// by digit rather than by reading the layout (every record answered has two
// or more timestamps, a page of twenty forty). A year outside 0–9999 goes
// through AppendFormat.
func AppendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, TimeLayout)
	}
	hour, minute, sec := t.Clock()
	us := t.Nanosecond() / 1000
	b = append(b,
		byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+int(month)/10), byte('0'+int(month)%10), '-',
		byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':',
		byte('0'+minute/10), byte('0'+minute%10), ':',
		byte('0'+sec/10), byte('0'+sec%10), '.',
		byte('0'+us/100000), byte('0'+us/10000%10), byte('0'+us/1000%10),
		byte('0'+us/100%10), byte('0'+us/10%10), byte('0'+us%10), 'Z')
	return b
}

// UnmarshalJSON reads an RFC 3339 timestamp.
func (t *JSONTime) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("timestamp: %w", err)
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("timestamp: %w", err)
	}
	*t = JSONTime(v)
	return nil
}

func timePtr(t time.Time) *JSONTime {
	j := JSONTime(t)
	return &j
}

// Time is the timestamp as a time.Time.
func (t JSONTime) Time() time.Time { return time.Time(t) }
