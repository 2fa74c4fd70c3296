package steps

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// ErrTarget marks a target the suite cannot test at all: it does not answer,
// does not speak this API, or refuses the configured credentials (exit code 2
// in the CLI). Its message is one line that says what to fix.
var ErrTarget = errors.New("target cannot be tested")

// ErrNothingTested marks a run that judged nothing: the selection was empty
// or every selected scenario was skipped (exit code 2 in the CLI).
var ErrNothingTested = errors.New("nothing was tested")

// preflightPath is the request the preflight sends: a list the spec names
// (§4.8) that every role may read, limited to one item.
const preflightPath = "/disputes?limit=1"

// credentialHint names where a credential comes from, for the preflight's messages.
func credentialHint(key string) string {
	switch key {
	case "platform":
		return "CONFORM_USER and CONFORM_PASSWORD, --user and --password, or credentials.platform in --config"
	case "merchant":
		return "CONFORM_MERCHANT_USER and CONFORM_MERCHANT_PASSWORD, or credentials.merchant in --config"
	}
	return "CONFORM_OTHER_USER and CONFORM_OTHER_PASSWORD, or credentials.other_application in --config"
}

// preflight checks, before any scenario, that the target answers, speaks
// this API (a 4xx without credentials carries the §7 error envelope) and
// accepts every configured credential. Errors wrap ErrTarget.
func (s *suite) preflight(ctx context.Context) error {
	if s.cfg.Credentials.Platform == nil {
		return fmt.Errorf("%w: no platform credentials: set %s", ErrTarget, credentialHint("platform"))
	}
	status, ctype, body, err := s.probe(ctx, nil)
	if err != nil {
		return err
	}
	if status >= 400 && status <= 499 {
		if !looksLikeEnvelope(body) {
			// Errors outside the §7 envelope break §7, which the scenarios
			// judge; whether this is the API at all the authenticated
			// answer tells.
			ok, err := s.speaksWithCredentials(ctx)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("%w: %s does not speak the Payments Service API: GET %s without credentials answered %d %s without the §7 error envelope, and with the platform credentials not with the list of schema %s",
					ErrTarget, s.cfg.Target, preflightPath, status, describeType(ctype), preflightSchema)
			}
		}
	} else if status < 200 || status > 299 {
		return fmt.Errorf("%w: %s does not speak the Payments Service API: GET %s without credentials answered %d %s (want a 401 with the §7 error envelope)",
			ErrTarget, s.cfg.Target, preflightPath, status, describeType(ctype))
	}
	for _, key := range []string{"platform", "merchant", "other_application"} {
		c := s.cfg.credential(key)
		if c == nil {
			continue
		}
		status, _, _, err := s.probe(ctx, c)
		if err != nil {
			return err
		}
		if status == http.StatusUnauthorized {
			return fmt.Errorf("%w: %s refused the %s credentials (user %s): 401 on GET %s; check %s",
				ErrTarget, s.cfg.Target, key, c.Username, preflightPath, credentialHint(key))
		}
	}
	return nil
}

// preflightSchema is the response schema of the preflight request.
const preflightSchema = "dispute_list"

// speaksWithCredentials reports whether the preflight request with the
// platform credentials is answered with a 2xx whose body has the API's
// shape: the list of the response schema.
func (s *suite) speaksWithCredentials(ctx context.Context) (bool, error) {
	status, _, body, err := s.probe(ctx, s.cfg.Credentials.Platform)
	if err != nil {
		return false, err
	}
	return status >= 200 && status <= 299 && s.v.Validate(preflightSchema, body) == nil, nil
}

// probe sends the preflight request, with c's credentials when c is not nil.
func (s *suite) probe(ctx context.Context, c *Credential) (int, string, []byte, error) {
	req := s.client.R().SetContext(ctx)
	if c != nil {
		req.SetBasicAuth(c.Username, c.Password)
	}
	resp, err := req.Get(s.cfg.Target + preflightPath)
	if err != nil {
		return 0, "", nil, fmt.Errorf("%w: %s", ErrTarget, unreachable(s.cfg.Target, s.cfg.Timeout.String(), err))
	}
	return resp.StatusCode(), resp.Header().Get("Content-Type"), resp.Body(), nil
}

// unreachable explains a transport error in one line.
func unreachable(target, timeout string, err error) string {
	var nerr net.Error
	var operr *net.OpError
	var dnserr *net.DNSError
	switch {
	case errors.As(err, &dnserr):
		return fmt.Sprintf("%s: host %s not found", target, dnserr.Name)
	case errors.As(err, &nerr) && nerr.Timeout():
		return fmt.Sprintf("%s did not answer within %s (per-request timeout: --timeout or CONFORM_TIMEOUT)", target, timeout)
	case errors.As(err, &operr) && operr.Op == "dial":
		return fmt.Sprintf("%s refused the connection (%v)", target, operr.Err)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	return fmt.Sprintf("%s: %v", target, err)
}

// looksLikeEnvelope reports a JSON object with the §7 envelope's total or
// _embedded: enough to tell this API from another server. The envelope's
// details are the scenarios' business, so a broken envelope FAILs there.
func looksLikeEnvelope(body []byte) bool {
	m, ok := decodeJSON(body).(map[string]any)
	if !ok {
		return false
	}
	_, total := m["total"]
	_, embedded := m["_embedded"]
	return total || embedded
}

// describeType names a response's media type for a message.
func describeType(ctype string) string {
	if ctype == "" {
		return "with no content type"
	}
	mt, _, _ := strings.Cut(ctype, ";")
	return strings.TrimSpace(mt)
}
