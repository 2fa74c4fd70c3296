package ledger

import (
	"fmt"
	"time"
)

// Limits bounds what clients may store, so a sandbox left running for days
// stays bounded in memory and one application cannot crowd out another
// (reference/README.md "The sandbox: namespaces, quotas, stores"). A bound
// reached is a 429 QUOTA_EXCEEDED that changes nothing; nothing is ever
// evicted to make room. Only age removes what a client created, and nothing
// younger than MaxAge. A zero field takes its default; a negative one turns
// that bound off. Seeded fixtures never count and never expire.
type Limits struct {
	// MaxAge is how long a resource a client created (and an idempotency
	// key) is kept; default 24h, so a working day's resources survive.
	MaxAge time.Duration
	// MaxRetained is how many client-created resources (and, separately,
	// idempotency keys) one application may hold; a create beyond it is
	// 429 QUOTA_EXCEEDED until some age out. Default 20,000.
	MaxRetained int
	// MaxBytes is the estimated memory (1 KiB plus twice the request body
	// per resource) one application's resources may take; a create that
	// would pass it is 429 QUOTA_EXCEEDED. Default 64 MiB.
	MaxBytes int64
	// CreatesPerMinute is how many resources one application may create in
	// a minute; one more is 429 QUOTA_EXCEEDED. Default 60,000.
	CreatesPerMinute int
	// Webhooks is how many enabled webhooks one application may hold; default 50.
	Webhooks int
	// UploadBytes is how many bytes of uploaded file content one application
	// may hold; default 32 MiB.
	UploadBytes int64
	// Tags is how many tags one resource may carry; default 50.
	Tags int
	// PendingDeliveries is how many deliveries to one webhook may be
	// pending: published and not yet delivered, refused or abandoned
	// (waiting for their first attempt or for a retry). One more drops the
	// oldest pending delivery of that webhook as failed (logged), so a
	// target that comes back gets the newest events, and one that never
	// does holds at most this many. Default 1,000.
	PendingDeliveries int
}

// Default limits; see Limits.
const (
	DefaultMaxAge            = 24 * time.Hour
	DefaultMaxRetained       = 20_000
	DefaultMaxBytes          = 64 << 20
	DefaultCreatesPerMinute  = 60_000
	DefaultWebhooks          = 50
	DefaultUploadBytes       = 32 << 20
	DefaultTags              = 50
	DefaultPendingDeliveries = 1_000
)

// WithDefaults fills zero fields with the defaults and turns negative ones
// into 0, "no bound", for the checks below.
func (l Limits) WithDefaults() Limits {
	l.MaxRetained = Pick(l.MaxRetained, DefaultMaxRetained)
	l.CreatesPerMinute = Pick(l.CreatesPerMinute, DefaultCreatesPerMinute)
	l.Webhooks = Pick(l.Webhooks, DefaultWebhooks)
	l.Tags = Pick(l.Tags, DefaultTags)
	l.PendingDeliveries = Pick(l.PendingDeliveries, DefaultPendingDeliveries)
	l.MaxAge = Pick(l.MaxAge, DefaultMaxAge)
	l.MaxBytes = Pick(l.MaxBytes, DefaultMaxBytes)
	l.UploadBytes = Pick(l.UploadBytes, DefaultUploadBytes)
	return l
}

// Pick is v, or def when v is zero; a negative v turns the bound off (0).
func Pick[N int | int64 | time.Duration](v, def N) N {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// recordOverhead is the estimated memory of a record besides what its
// request body brought.
const recordOverhead = 1 << 10

// Cost estimates the memory a resource created from a body of n bytes takes.
func Cost(n int) int64 { return recordOverhead + 2*int64(n) }

// ErrQuota is the 429 of a cap.
func ErrQuota(format string, args ...any) error {
	return &DomainError{Kind: KindQuotaExceeded, Message: fmt.Sprintf(format, args...)}
}

// admit checks, after dropping what has expired, the application's creation
// rate and whether one more resource from a body of bodyBytes fits its
// resource and byte bounds, and counts the unit's creates as that one
// resource. A refusal changes nothing; an application being seeded is
// exempt.
func admit(t Tx, bodyBytes int) error {
	q := t.Quota()
	u, ok := q.Usage()
	if !ok {
		return &DomainError{Kind: KindNotFound, Message: "the application was not found (its namespace was dropped)"}
	}
	if !u.Exempt {
		lim, now := q.Limits(), t.Now()
		created := u.Created
		if now.Sub(u.Window) >= time.Minute || now.Before(u.Window) {
			created = 0
		}
		switch {
		case lim.CreatesPerMinute > 0 && created >= lim.CreatesPerMinute:
			return ErrQuota("this application created %d resources in the last minute, the most it may; retry in a minute", lim.CreatesPerMinute)
		case lim.MaxRetained > 0 && u.Retained >= lim.MaxRetained:
			return ErrQuota("this application holds %d resources, the most it may; they free up as they reach the age limit (%s)", lim.MaxRetained, AgeText(lim.MaxAge))
		case lim.MaxBytes > 0 && u.Bytes+Cost(bodyBytes) > lim.MaxBytes:
			return ErrQuota("this application's resources take %d of the %d bytes it may hold; they free up as they reach the age limit (%s)", u.Bytes, lim.MaxBytes, AgeText(lim.MaxAge))
		}
	}
	q.Count(bodyBytes)
	return nil
}

// admitWebhook bounds the application's enabled webhooks: the ones that
// receive deliveries; disabled ones (the suite disables each webhook it
// creates when its scenario ends) only age out with retention.
func admitWebhook(t Tx) error {
	q := t.Quota()
	lim := q.Limits()
	if lim.Webhooks > 0 && q.EnabledWebhooks() >= lim.Webhooks {
		return ErrQuota("this application has %d enabled webhooks, the most it may: disable one, or wait for it to expire (%s after creation)", lim.Webhooks, lim.MaxAge)
	}
	return nil
}

// takeUpload takes n bytes of file content from the application's upload
// bound, or refuses them.
func takeUpload(t Tx, n int64) error {
	q := t.Quota()
	u, ok := q.Usage()
	if !ok {
		return &DomainError{Kind: KindNotFound, Message: "the application was not found (its namespace was dropped)"}
	}
	if lim := q.Limits(); lim.UploadBytes > 0 && u.UploadBytes+n > lim.UploadBytes {
		return ErrQuota("this application holds %d bytes of file content; %d more would pass its %d-byte quota (files expire %s after creation)",
			u.UploadBytes, n, lim.UploadBytes, lim.MaxAge)
	}
	q.AddUpload(n)
	return nil
}

// UploadFits refuses, before a byte is read, content of at least n declared
// bytes that would pass the application's upload bound.
func UploadFits(t Tx, n int64) error {
	q := t.Quota()
	lim := q.Limits()
	if lim.UploadBytes <= 0 || n <= 0 {
		return nil
	}
	u, ok := q.Usage()
	if !ok || u.UploadBytes+n <= lim.UploadBytes {
		return nil
	}
	return ErrQuota("this application holds %d bytes of file content; the %d declared would pass its %d-byte quota (files expire %s after creation)",
		u.UploadBytes, n, lim.UploadBytes, lim.MaxAge)
}

// AgeText names an age limit for a refusal's message.
func AgeText(d time.Duration) string {
	if d <= 0 {
		return "none: nothing expires"
	}
	return d.String()
}
