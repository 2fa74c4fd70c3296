package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"
)

// Sides: a server answering a sequence (the target over HTTP, the model
// in-process), the ids and documents it showed, and the explorer's
// webhook receiver.

// side is one server answering the sequence: the target or the model.
type side struct {
	do       func(*http.Request) (*http.Response, error)
	base     string
	cfg      Target
	ids      map[string]string
	docs     map[string]map[string]any // role → last document seen of it
	expect   map[string][]expectField  // role → fields its reads must show
	fixed    map[string]map[string]any // mutable fixture key → its fields as this side was last set (the model)
	seen     map[string]int            // mutable fixture key → the run's updates of it when this side last saw it (the target)
	ctype    string
	isTarget bool
}

// newSide is a side that has seen nothing yet.
func newSide(do func(*http.Request) (*http.Response, error), base string, cfg Target, ctype string) *side {
	return &side{do: do, base: base, cfg: cfg, ctype: ctype,
		ids: map[string]string{}, docs: map[string]map[string]any{}, expect: map[string][]expectField{}, fixed: map[string]map[string]any{}, seen: map[string]int{}}
}

// fixtures are the side's {fixture:key} values, from the suite's table.
func (s *side) fixtures() [][2]string { return s.cfg.Fixtures }

// fixture is the side's value of one fixture key ("" if unset or unknown).
func (s *side) fixture(key string) string {
	for _, kv := range s.fixtures() {
		if kv[0] == key {
			return kv[1]
		}
	}
	return ""
}

// expand replaces {role} and {fixture:key} as the suite's steps do.
func (s *side) expand(text string) string {
	if !strings.Contains(text, "{") {
		return text
	}
	var pairs []string
	for k, v := range s.ids {
		pairs = append(pairs, "{"+k+"}", v)
	}
	for _, kv := range s.fixtures() {
		pairs = append(pairs, "{fixture:"+kv[0]+"}", kv[1])
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

func (s *side) credential(user string) *User {
	if c, ok := questionCredential(s.cfg, user); ok {
		return c
	}
	switch user {
	case userMerchant:
		return s.cfg.Users.Merchant
	case userOther:
		return s.cfg.Users.OtherApplication
	}
	return s.cfg.Users.Platform
}

// send performs one request of the step on the side.
func (s *side) send(ctx context.Context, st Step, pathWithQuery string) (Exchange, error) {
	ex := Exchange{Step: st, User: st.User, Method: st.Method, Path: s.expand(pathWithQuery), Body: s.expand(st.Body), ContentType: st.ContentType}
	if ex.User == "" {
		ex.User = userPlatform
	}
	var body io.Reader
	if st.Body != "" {
		body = strings.NewReader(ex.Body)
		if ex.ContentType == "" {
			ex.ContentType = s.ctype
		}
	}
	req, err := http.NewRequestWithContext(ctx, st.Method, s.base+ex.Path, body)
	if err != nil {
		return ex, fmt.Errorf("explore: build request: %w", err)
	}
	if ex.ContentType != "" {
		req.Header.Set("Content-Type", ex.ContentType)
	}
	if c := s.credential(ex.User); c != nil {
		req.SetBasicAuth(c.Username, c.Password)
	}
	resp, err := s.do(req)
	if err != nil {
		return ex, &NoAnswerError{Method: st.Method, Path: ex.Path, Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return ex, fmt.Errorf("explore: read %s %s: %w", st.Method, ex.Path, err)
	}
	ex.Status, ex.Response = resp.StatusCode, string(data)
	if len(bytes.TrimSpace(data)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var doc any
		if dec.Decode(&doc) == nil {
			ex.doc = doc
		}
	}
	return ex, nil
}

// handlerDo serves a request with an in-process handler.
func handlerDo(h http.Handler) func(*http.Request) (*http.Response, error) {
	return func(req *http.Request) (*http.Response, error) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Result(), nil
	}
}

const modelBase = "http://model.explore.invalid"

// startReceiver listens where the config's webhook receiver says (default
// a loopback port) and answers every delivery 200, so the webhooks a run
// makes point somewhere that takes their events without retries.
func (r *runner) startReceiver() (func(), error) {
	listen := r.opts.Target.Receiver.Listen
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("%w: webhook receiver: %w", ErrOptions, err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.deliveries.take(req)
	}), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // ErrServerClosed after stop
	r.hookBase = strings.TrimRight(r.opts.Target.Receiver.PublicURL, "/")
	if r.hookBase == "" {
		r.hookBase = "http://" + ln.Addr().String()
	}
	return func() { _ = srv.Close() }, nil
}

// routed is the step as the target takes it: the method and path its
// profile declares for the operation (webhook_routes), the ids kept.
func (r *runner) routed(st Step) Step {
	op, ok := r.v.Operation(st.Op)
	if !ok {
		return st
	}
	method, pattern := r.profile.Route(op)
	if method == op.Method && pattern == op.Path {
		return st
	}
	// The table's pattern and the step's path have the same segments: the
	// step's placeholders fill the declared pattern's parameters in order.
	var fills []string
	tmpl, concrete := strings.Split(op.Path, "/"), strings.Split(st.Path, "/")
	for i, seg := range tmpl {
		if strings.HasPrefix(seg, "{") && i < len(concrete) {
			fills = append(fills, concrete[i])
		}
	}
	var out []string
	for _, seg := range strings.Split(pattern, "/") {
		if strings.HasPrefix(seg, "{") && len(fills) > 0 {
			seg, fills = fills[0], fills[1:]
		}
		out = append(out, seg)
	}
	st.Method, st.Path = method, strings.Join(out, "/")
	return st
}

// NoAnswerError is a request the target never answered (a timeout, a
// connection reset).
type NoAnswerError struct {
	Method, Path string
	Err          error
}

func (e *NoAnswerError) Error() string {
	return fmt.Sprintf("explore: %s %s: %v", e.Method, e.Path, e.Err)
}

func (e *NoAnswerError) Unwrap() error { return e.Err }
