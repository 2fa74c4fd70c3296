package reference

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBodyBudgetWaitsInOrder: bytes beyond the budget wait; a release
// wakes waiters in arrival order as they fit; a waiter whose request ends
// leaves the queue without taking anything; a request larger than the whole
// budget takes all of it.
func TestBodyBudgetWaitsInOrder(t *testing.T) {
	b := newBodyBudget(100)
	ctx := context.Background()
	first, err := b.acquire(ctx, 60)
	require.NoError(t, err)
	assert.EqualValues(t, 60, first)

	order := make(chan string, 3)
	took := func(name string, n int64) {
		held, err := b.acquire(ctx, n)
		assert.NoError(t, err, name)
		order <- name
		b.release(held)
	}
	gone, cancel := context.WithCancel(ctx)
	goneDone := make(chan error, 1)
	go func() { _, err := b.acquire(gone, 50); goneDone <- err }()
	waitQueued(t, b, 1)
	go took("second", 50)
	waitQueued(t, b, 2)
	cancel()
	assert.ErrorIs(t, <-goneDone, context.Canceled, "a waiter whose request ended")
	go took("whole", 1000)
	waitQueued(t, b, 2)
	b.release(first)
	assert.Equal(t, "second", <-order)
	assert.Equal(t, "whole", <-order)
	b.mu.Lock()
	defer b.mu.Unlock()
	assert.EqualValues(t, 100, b.free, "everything released")
	assert.Empty(t, b.waiting)
}

func waitQueued(t *testing.T, b *bodyBudget, n int) {
	t.Helper()
	eventually(t, "waiters queued", func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return len(b.waiting) == n
	})
}

// readCounter is a body that counts the bytes read from it.
type readCounter struct {
	r    io.Reader
	read int
}

func (c *readCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += n
	return n, err
}

// TestUploadOverQuotaIsRefusedBeforeItIsRead: content whose declared length
// would pass the upload quota is 429 before a byte of it is read, for a
// file's upload and for an external link's upload URL.
func TestUploadOverQuotaIsRefusedBeforeItIsRead(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Limits = ledger.Limits{MaxAge: -1, UploadBytes: 1000} })
	file := h.newFile("Quota")
	link := h.expect(h.call(h.platform(), "POST", "/files/"+file+"/external_links", map[string]any{"type": "UPLOAD"}), 200, "").str(t, "id")
	for _, c := range []struct {
		name, path, contentType string
		auth                    bool
		size                    int
	}{
		{"multipart upload", "/files/" + file + "/upload", "multipart/form-data; boundary=x", true, 5000 + multipartSlack},
		{"upload URL", "/external_links/" + link + "/upload", "application/pdf", false, 5000},
	} {
		body := &readCounter{r: strings.NewReader(strings.Repeat("x", c.size))}
		method := "POST"
		if !c.auth {
			method = "PUT"
		}
		req := httptest.NewRequest(method, testBase+c.path, body)
		req.ContentLength = int64(c.size)
		req.Header.Set("Content-Type", c.contentType)
		if c.auth {
			req.SetBasicAuth(h.platform().Username, h.platform().Password)
		}
		rec := httptest.NewRecorder()
		h.srv.ServeHTTP(rec, req)
		r := response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
		h.expect(r, 429, "error")
		assert.Equal(t, "QUOTA_EXCEEDED", errorCode(t, r), c.name)
		assert.Zero(t, body.read, "%s: bytes read before the refusal", c.name)
	}
}
