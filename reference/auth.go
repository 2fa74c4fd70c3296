package reference

import (
	"crypto/subtle"
	"net/http"
	"slices"
)

// authenticate checks HTTP Basic credentials in constant time (an unknown
// user costs the same comparison as a wrong password) and the operation's
// roles: 401 UNKNOWN "Unauthorized", then 403 FORBIDDEN "Access is denied".
func (s *Server) authenticate(r *http.Request, roles []string) (user, error) {
	username, password, ok := r.BasicAuth()
	if !ok {
		return user{}, errUnauthorized
	}
	u, found := s.units.User(r.Context(), username, s.now())
	want, got := u.wantDigest(), u.passwordDigest(password)
	if subtle.ConstantTimeCompare(want[:], got[:]) != 1 || !found {
		return user{}, errUnauthorized
	}
	if !slices.Contains(roles, u.role) {
		return user{}, errForbidden
	}
	return u, nil
}
