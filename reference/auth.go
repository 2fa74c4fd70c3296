package reference

import (
	"crypto/subtle"
	"net/http"
	"slices"

	"github.com/conform-kit/conform/reference/ledger"
)

// authenticate checks HTTP Basic credentials in constant time (an unknown
// user costs the same comparison as a wrong password) and the operation's
// roles: 401 UNKNOWN "Unauthorized", then 403 FORBIDDEN "Access is denied".
func (s *Server) authenticate(r *http.Request, roles []string) (ledger.User, error) {
	username, password, ok := r.BasicAuth()
	if !ok {
		return ledger.User{}, errUnauthorized
	}
	u, found := s.units.User(r.Context(), username, s.now())
	want, got := u.WantDigest(), u.PasswordDigest(password)
	if subtle.ConstantTimeCompare(want[:], got[:]) != 1 || !found {
		return ledger.User{}, errUnauthorized
	}
	if !slices.Contains(roles, u.Role) {
		return ledger.User{}, errForbidden
	}
	return u, nil
}

// The refusals of authentication (401) and of a role (403).
var (
	errUnauthorized = &ledger.DomainError{Kind: ledger.KindUnauthorized, Message: "Unauthorized"}
	errForbidden    = &ledger.DomainError{Kind: ledger.KindForbidden, Message: "Access is denied"}
)
