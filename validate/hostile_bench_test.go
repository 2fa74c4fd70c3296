package validate

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// hostileBodies are the three 1 MiB shapes a client can send to make a
// validator spend memory: an array where an object belongs, 25,000 tags,
// and nesting as deep as encoding/json allows (9,990 levels, refused at
// MaxDepth). Exported to the reference's tests
// through HostileBodies.
func hostileBodies() []struct {
	Name string
	Body []byte
} {
	const size = 1 << 20
	zeros := "[" + strings.Repeat("0,", size/2-2) + "0]"
	var tags strings.Builder
	tags.WriteString(`{"url":"https://example.com/hook","tags":{`)
	for i := 0; tags.Len() < size-64; i++ {
		if i > 0 {
			tags.WriteByte(',')
		}
		fmt.Fprintf(&tags, `"tag%05d":"value number %05d, a little padding"`, i, i)
	}
	tags.WriteString(`}}`)
	const depth = 9990
	deep := `{"url":"https://example.com/hook","tags":{"a":` + strings.Repeat(`[`, depth) + strings.Repeat(`]`, depth) + `},"pad":"` +
		strings.Repeat("x", size-2*depth-64) + `"}`
	return []struct {
		Name string
		Body []byte
	}{
		{"array of zeros", []byte(zeros)},
		{"25,000 tags", []byte(tags.String())},
		{"deep nesting", []byte(deep)},
	}
}

// tooDeepBody is 100,000 nested arrays inside tags (195 KiB): far past the
// nesting a body may have, and past encoding/json's limit.
func tooDeepBody() []byte {
	const depth = 100000
	return []byte(`{"url":"https://example.com/hook","tags":{"a":` + strings.Repeat(`[`, depth) + strings.Repeat(`]`, depth) + `}}`)
}

// BenchmarkHostile validates each hostile shape against webhooks.create;
// -benchmem gives the heap per call.
func BenchmarkHostile(b *testing.B) {
	v, err := New()
	require.NoError(b, err)
	shapes := append(hostileBodies(), struct {
		Name string
		Body []byte
	}{"100,000 nested arrays", tooDeepBody()})
	for _, h := range shapes {
		b.Run(strings.ReplaceAll(h.Name, " ", "_"), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(h.Body)))
			for b.Loop() {
				_ = v.Request("webhooks.create", h.Body)
			}
		})
	}
}

// badItemsSale is a sale with n Level 3 items that each break two rules.
func badItemsSale(n int) []byte {
	body := string(BenchLevel3Sale(n))
	body = strings.ReplaceAll(body, `"quantity":2`, `"quantity":0`)
	return []byte(strings.ReplaceAll(body, `"commodity_code":"12345"`, `"commodity_code":"x"`))
}

// BenchmarkBadItems validates a sale of 8,000 items that each break two
// rules (16,000 violations, of which MaxViolations are listed).
func BenchmarkBadItems(b *testing.B) {
	v, err := New()
	require.NoError(b, err)
	body := badItemsSale(8000)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		_ = v.Request("transfers.create", body)
	}
}

// TestHostileBodiesCostLittle bounds the heap one call allocates on each
// hostile shape: a small constant, whatever the size of the body.
func TestHostileBodiesCostLittle(t *testing.T) {
	v, err := New()
	require.NoError(t, err)
	for _, h := range hostileBodies() {
		t.Run(h.Name, func(t *testing.T) {
			require.Greater(t, len(h.Body), 1<<20-256)
			_ = v.Request("webhooks.create", h.Body) // warm the pool
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			const calls = 5
			for range calls {
				_ = v.Request("webhooks.create", h.Body)
			}
			runtime.ReadMemStats(&after)
			perCall := (after.TotalAlloc - before.TotalAlloc) / calls
			t.Logf("%s: %d bytes allocated per call", h.Name, perCall)
			require.Less(t, perCall, uint64(64<<10), "a call allocates more than 64 KiB")
		})
	}
}
