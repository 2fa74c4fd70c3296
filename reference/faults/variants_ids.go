package faults

import (
	"bytes"
	"crypto/sha256"
	"io"
	"math/big"
	"mime"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

// Variants whose choice is the form of resource ids: the spec shows a prefix
// per resource (§2) and ids of 22 alphanumerics after it in its examples,
// which a server may well not follow.

// idVariants make ids of another form.
func idVariants() []Variant {
	return []Variant{
		{
			Name: "ids-base58-21", Tags: "@transfers,@disputes", Choice: "ids of 21 base58 characters after the prefix",
			Profile: `{"id_form": "[1-9A-HJ-NP-Za-km-z]{21}"}`,
			build:   base58IDs,
		},
	}
}

// base58IDs maps every id the reference makes to its prefix and 21 base58
// characters, both ways: in responses and deliveries out, in paths,
// queries, JSON bodies and Basic usernames in.
// Deliveries are signed again with the webhook's secret.
func base58IDs() variantParts {
	m := &idMap{out: map[string]string{}, in: map[string]string{}, secrets: map[string]string{}}
	j, err := judging.Default()
	if err == nil {
		for _, p := range j.Table().IDPrefixes {
			m.prefixes = append(m.prefixes, p.Prefix)
		}
	}
	sort.Slice(m.prefixes, func(i, j int) bool { return len(m.prefixes[i]) > len(m.prefixes[j]) })
	alt := strings.Join(quoteAll(m.prefixes), "|")
	m.orig = regexp.MustCompile(`(` + alt + `)([0-9A-Za-z]{22})`)
	m.mapped = regexp.MustCompile(`(` + alt + `)([1-9A-HJ-NP-Za-km-z]{21})`)
	return variantParts{
		wrap: func(next http.Handler, _ faultDeps) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if user, pw, ok := r.BasicAuth(); ok {
					r.SetBasicAuth(string(m.replace(m.mapped, []byte(user), m.back)), pw)
				}
				r.URL.Path = string(m.replace(m.mapped, []byte(r.URL.Path), m.back))
				r.URL.RawPath = ""
				r.URL.RawQuery = string(m.replace(m.mapped, []byte(r.URL.RawQuery), m.back))
				if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); strings.Contains(mt, "json") {
					if b, err := io.ReadAll(r.Body); err == nil {
						// A body over the limit is refused as too large whatever
						// ids it holds (mapped back, they only grow), so it is
						// not scanned: the scan of a mebibyte takes most of a
						// second, which a combined run under load cannot spare.
						if len(b) <= validate.MaxBodyBytes {
							b = m.replace(m.mapped, b, m.back)
						}
						r.Body = io.NopCloser(bytes.NewReader(b))
						r.ContentLength = int64(len(b))
						r.Header.Set("Content-Length", strconv.Itoa(len(b)))
					}
				}
				onJSON(next, func(_ *http.Request, _ *faultRecorder, body []byte) []byte {
					m.noteSecret(body)
					return m.replace(m.orig, body, m.forth)
				}).ServeHTTP(w, r)
			})
		},
		transport: func(base http.RoundTripper) http.RoundTripper {
			return rewriteDelivery(base, func(req *http.Request, body []byte) ([]byte, error) {
				out := m.replace(m.orig, body, m.forth)
				if secret := m.secret(req.URL.String()); secret != "" {
					req.Header.Set("Finix-Signature", judging.SignatureValue(secret, strconv.FormatInt(time.Now().Unix(), 10), out))
				}
				return out, nil
			})
		},
		seeded: func(s reference.Seeded) reference.Seeded {
			for _, c := range []*reference.Credential{&s.Credentials.Platform, &s.Credentials.Merchant, &s.Credentials.OtherApplication} {
				c.Username = string(m.replace(m.orig, []byte(c.Username), m.forth))
			}
			f := &s.Fixtures
			for _, p := range []*string{&f.BuyerIdentity, &f.Merchant, &f.MerchantIdentity, &f.PlainMerchant, &f.PlainMerchantIdentity,
				&f.SubscriptionSchedule, &f.SubscriptionAmount, &f.Dispute, &f.BalanceTransfer} {
				*p = string(m.replace(m.orig, []byte(*p), m.forth))
			}
			return s
		},
	}
}

// quoteAll quotes each of list for a regular expression.
func quoteAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = regexp.QuoteMeta(s)
	}
	return out
}

// idMap is the variant's id mapping and the webhooks' secrets by url.
type idMap struct {
	prefixes     []string
	orig, mapped *regexp.Regexp
	mu           sync.Mutex
	out, in      map[string]string // original id → variant id, and back
	secrets      map[string]string // webhook url → secret_signing_key
}

// replace rewrites every whole match of re in b with fn(prefix, rest).
func (m *idMap) replace(re *regexp.Regexp, b []byte, fn func(prefix, rest string) string) []byte {
	var out bytes.Buffer
	last := 0
	for _, loc := range re.FindAllSubmatchIndex(b, -1) {
		start, end := loc[0], loc[1]
		if start > 0 && isAlnum(b[start-1]) || end < len(b) && isAlnum(b[end]) {
			continue
		}
		out.Write(b[last:start])
		out.WriteString(fn(string(b[loc[2]:loc[3]]), string(b[loc[4]:loc[5]])))
		last = end
	}
	out.Write(b[last:])
	return out.Bytes()
}

// isAlnum reports whether c is an ASCII letter or digit.
func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

// base58 is the alphabet of the variant's ids (no 0, O, I or l).
const base58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// forth maps an original id to the variant's (stable: a hash of it).
func (m *idMap) forth(prefix, rest string) string {
	orig := prefix + rest
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.out[orig]; ok {
		return v
	}
	sum := sha256.Sum256([]byte(orig))
	n := new(big.Int).SetBytes(sum[:])
	var b strings.Builder
	for range 21 {
		mod := new(big.Int)
		n.DivMod(n, big.NewInt(58), mod)
		b.WriteByte(base58[mod.Int64()])
	}
	v := prefix + b.String()
	m.out[orig], m.in[v] = v, orig
	return v
}

// back maps a variant id to the original, or leaves an unknown one as is.
func (m *idMap) back(prefix, rest string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if o, ok := m.in[prefix+rest]; ok {
		return o
	}
	return prefix + rest
}

// noteSecret remembers the secret of a single-webhook response by its url.
func (m *idMap) noteSecret(body []byte) {
	doc := decodeFaultJSON(body)
	url, _ := doc["url"].(string)
	key, _ := doc["secret_signing_key"].(string)
	if url != "" && key != "" {
		m.mu.Lock()
		m.secrets[url] = key
		m.mu.Unlock()
	}
}

// secret is the secret noted for the webhook at url, or "".
func (m *idMap) secret(url string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.secrets[url]
}
