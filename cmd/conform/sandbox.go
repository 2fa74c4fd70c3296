package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/steps"
	"github.com/conform-kit/conform/validate"
)

// namespacesPath is the sandbox's admin route: POST mints a namespace,
// DELETE namespacesPath/{id} drops one. It is not part of the API.
const namespacesPath = "/_conform/namespaces"

// newAdminToken is a fresh random admin credential.
func newAdminToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("admin token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// adminTokenHolder keeps the sandbox's admin tokens where every replica
// reads them: *reference.PostgresStore, for conform serve --store.
type adminTokenHolder interface {
	AddAdminToken(ctx context.Context, sum [32]byte) error
	HasAdminToken(ctx context.Context, sum [32]byte) (bool, error)
}

// sandboxHandler serves the namespace admin routes with the admin token
// (Authorization: Bearer) and passes every other request to api. Every
// answer of an admin path is in the error envelope, another method on an
// admin route too (405 with Allow). With a holder (a durable sandbox), a
// token any replica handed out, before a restart too, is also accepted.
func sandboxHandler(ref *reference.Server, base, token string, holder adminTokenHolder, api http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	// adminOnly answers 401 in the envelope unless the request carries an admin token.
	adminOnly := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			got := sha256.Sum256([]byte(bearer))
			accepted := ok && bearer != "" && token != "" && subtle.ConstantTimeCompare(want[:], got[:]) == 1
			if !accepted && ok && bearer != "" && holder != nil {
				known, err := holder.HasAdminToken(r.Context(), got)
				if err != nil {
					validate.WriteEnvelope(w, r, http.StatusServiceUnavailable, validate.ErrorItem{Code: "UNKNOWN", Message: "the sandbox cannot check the admin token now; try again"})
					return
				}
				accepted = known
			}
			if !accepted {
				validate.WriteEnvelope(w, r, http.StatusUnauthorized, validate.ErrorItem{Code: "UNKNOWN", Message: "Unauthorized"})
				return
			}
			h(w, r)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		validate.WriteEnvelope(w, r, http.StatusNotFound, validate.ErrorItem{Code: "NOT_FOUND", Message: "no such sandbox route: POST " + namespacesPath + " mints a namespace, DELETE " + namespacesPath + "/{id} drops one"})
	})
	// Another method on an admin route is 405 naming the one it takes.
	for route, allow := range map[string]string{namespacesPath: http.MethodPost, namespacesPath + "/{id}": http.MethodDelete} {
		mux.HandleFunc(route, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allow)
			validate.WriteEnvelope(w, r, http.StatusMethodNotAllowed, validate.ErrorItem{Code: "METHOD_NOT_ALLOWED", Message: r.Method + " is not allowed here: " + allow + " " + route})
		})
	}
	mux.HandleFunc("POST "+namespacesPath, adminOnly(func(w http.ResponseWriter, r *http.Request) {
		ns, err := ref.CreateNamespace()
		if err != nil {
			ref.WriteError(w, r, err)
			return
		}
		cfg := suiteConfig(base, ns.Seeded)
		cfg.Sandbox = &steps.SandboxAccess{URL: base, Namespace: ns.ID}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(cfg)
	}))
	mux.HandleFunc("DELETE "+namespacesPath+"/{id}", adminOnly(func(w http.ResponseWriter, r *http.Request) {
		if err := ref.DropNamespace(r.PathValue("id")); err != nil {
			ref.WriteError(w, r, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, namespacesPath) && r.RequestURI != "*" {
			mux.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r) // every other target, odd ones too, is the API's
	})
}

// sandboxClient mints and drops namespaces of a conform sandbox.
type sandboxClient struct {
	access steps.SandboxAccess
	http   *http.Client
}

// sandboxFor returns the namespace client of cfg when its target is the
// conform sandbox its admin token is for, and false otherwise: the token is
// never sent to any other target.
func sandboxFor(cfg steps.Config) (*sandboxClient, bool) {
	sb := cfg.Sandbox
	if sb == nil || sb.AdminToken == "" || cfg.Target == "" || !sameOrigin(cfg.Target, sb.URL) {
		return nil, false
	}
	return &sandboxClient{access: *sb, http: &http.Client{Timeout: 30 * time.Second}}, true
}

// sameOrigin compares two base URLs by scheme, host and port.
func sameOrigin(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	return errA == nil && errB == nil && ua.Scheme != "" && strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host)
}

func (c *sandboxClient) do(ctx context.Context, method, path string, want int) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.access.URL, "/")+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.access.AdminToken)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != want {
		return nil, &sandboxStatusError{Method: method, URL: req.URL.String(), Status: resp.StatusCode, Body: string(bytes.TrimSpace(body))}
	}
	return body, nil
}

// sandboxStatusError is an admin request the sandbox answered with another
// status than the one wanted.
type sandboxStatusError struct {
	Method, URL string
	Status      int
	Body        string
}

func (e *sandboxStatusError) Error() string {
	return fmt.Sprintf("%s %s: %d %s: %s", e.Method, e.URL, e.Status, http.StatusText(e.Status), e.Body)
}

// AdminTokenRefusedError is the sandbox refusing the admin token of the
// config file (401): it is not a token this sandbox handed out (another
// sandbox's, or one of a memory sandbox since restarted).
type AdminTokenRefusedError struct {
	URL string // the sandbox
}

func (e *AdminTokenRefusedError) Error() string {
	return fmt.Sprintf("the sandbox at %s refused the admin token of the config file (401): the file was written by another conform serve, or by one since restarted, "+
		"whose token died with it (a --store sandbox keeps its tokens across restarts); use the fixtures file the running conform serve --fixtures wrote, "+
		"or --user and --password to run in the seeded application without a namespace", e.URL)
}

// refusedToken turns a 401 of the sandbox into an *AdminTokenRefusedError.
func (c *sandboxClient) refusedToken(err error) error {
	var st *sandboxStatusError
	if errors.As(err, &st) && st.Status == http.StatusUnauthorized {
		return &AdminTokenRefusedError{URL: c.access.URL}
	}
	return err
}

// mint takes a fresh namespace and returns its config.
func (c *sandboxClient) mint(ctx context.Context) (steps.Config, error) {
	body, err := c.do(ctx, http.MethodPost, namespacesPath, http.StatusCreated)
	if err != nil {
		return steps.Config{}, fmt.Errorf("take a namespace of the sandbox: %w", c.refusedToken(err))
	}
	var ns steps.Config
	if err := json.Unmarshal(body, &ns); err != nil {
		return steps.Config{}, fmt.Errorf("take a namespace of the sandbox: %w", err)
	}
	if ns.Sandbox == nil || ns.Sandbox.Namespace == "" {
		return steps.Config{}, fmt.Errorf("take a namespace of the sandbox: the answer names no namespace")
	}
	return ns, nil
}

// drop removes namespace id with everything in it.
func (c *sandboxClient) drop(ctx context.Context, id string) error {
	if _, err := c.do(ctx, http.MethodDelete, namespacesPath+"/"+url.PathEscape(id), http.StatusNoContent); err != nil {
		return fmt.Errorf("drop namespace %s: %w", id, c.refusedToken(err))
	}
	return nil
}

// inNamespace is cfg with the credentials and fixtures of namespace ns; the
// target, timeouts, webhook receiver and profile stay the caller's.
func inNamespace(cfg, ns steps.Config) steps.Config {
	cfg.Credentials, cfg.Fixtures = ns.Credentials, ns.Fixtures
	cfg.Sandbox = &steps.SandboxAccess{URL: cfg.Sandbox.URL, Namespace: ns.Sandbox.Namespace}
	return cfg
}
