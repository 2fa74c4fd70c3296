package reference

import (
	"crypto/rand"
	"fmt"
	mrand "math/rand/v2"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
)

// Namespace defaults; see Config.
const (
	DefaultNamespaceIdleTTL = time.Hour
	DefaultMaxNamespaces    = 64
)

// errNamespaceNotFound is the 404 of an unknown namespace.
func errNamespaceNotFound(id string) error {
	return &ledger.DomainError{Kind: ledger.KindNotFound, Message: fmt.Sprintf("namespace %s was not found", id)}
}

// ErrNamespaceNotFound reports whether err is DropNamespace's answer for an
// unknown namespace.
func ErrNamespaceNotFound(err error) bool {
	de, ok := err.(*ledger.DomainError)
	return ok && de.Kind == ledger.KindNotFound
}

// CreateNamespace mints a namespace with its own applications, users and
// fixtures. Beyond Config.MaxNamespaces live namespaces it is refused with a
// QUOTA_EXCEEDED error, which WriteError answers 429 in the envelope.
func (s *Server) CreateNamespace() (ledger.Namespace, error) {
	now := s.now()
	var key [32]byte
	if _, err := rand.Read(key[:]); err != nil {
		return ledger.Namespace{}, fmt.Errorf("reference: namespace secret: %w", err)
	}
	src := &ledger.SeededSource{Rng: mrand.New(mrand.NewChaCha8(key))}
	return s.units.MintNamespace(s.ctx, src, s.cfg.MaxNamespaces, s.cfg.NamespaceIdleTTL, now)
}

// DropNamespace removes a namespace with everything in it: its applications,
// users, resources, idempotency keys and retention records. Requests with
// its credentials are 401 afterwards.
func (s *Server) DropNamespace(id string) error {
	if !s.units.DropNamespace(s.ctx, id) {
		return errNamespaceNotFound(id)
	}
	return nil
}

// NamespaceCount is how many namespaces the sandbox holds.
func (s *Server) NamespaceCount() int { return s.units.NamespaceCount(s.ctx) }
