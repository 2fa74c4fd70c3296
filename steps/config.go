package steps

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/conform-kit/conform/validate/judging"
)

// Credential is one HTTP Basic user of the target.
type Credential struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// Credentials names the users the suite acts as. Any may be absent: scenarios
// needing a missing one are skipped, naming its key.
type Credentials struct {
	Platform         *Credential `json:"platform,omitempty"`          // ROLE_PLATFORM, application A
	Merchant         *Credential `json:"merchant,omitempty"`          // ROLE_MERCHANT, application A
	OtherApplication *Credential `json:"other_application,omitempty"` // ROLE_PLATFORM, application B
}

// Fixtures names resources that must already exist on the target because the
// spec has no operation to create them.
type Fixtures struct {
	BuyerIdentity         string `json:"buyer_identity,omitempty"`
	Merchant              string `json:"merchant,omitempty"`
	MerchantIdentity      string `json:"merchant_identity,omitempty"`
	PlainMerchant         string `json:"plain_merchant,omitempty"`
	PlainMerchantIdentity string `json:"plain_merchant_identity,omitempty"`
	SubscriptionSchedule  string `json:"subscription_schedule,omitempty"`
	SubscriptionAmount    string `json:"subscription_amount,omitempty"`
	Dispute               string `json:"dispute,omitempty"`
	BalanceTransfer       string `json:"balance_transfer,omitempty"`
}

// ReceiverConfig configures the kit's webhook receiver.
type ReceiverConfig struct {
	// Listen is the local address the receiver binds, default "127.0.0.1:0".
	Listen string `json:"listen,omitempty"`
	// PublicURL is the base URL the target must POST to, when it cannot reach
	// Listen directly; "" derives it from the bound address.
	PublicURL string `json:"public_url,omitempty"`
}

// Config is everything the suite knows about its target: the config-file shape
// that "conform serve --fixtures" writes and "conform run --config" reads.
type Config struct {
	Target          string         `json:"target"`
	Credentials     Credentials    `json:"credentials"`
	Fixtures        Fixtures       `json:"fixtures"`
	WebhookReceiver ReceiverConfig `json:"webhook_receiver"`
	// Profile declares the target's choices where the spec is silent: an
	// object of profile keys (schemas/judging.json) over the reference's
	// defaults. The kit checks these choices instead of the reference's.
	Profile json.RawMessage `json:"profile,omitempty"`
	// Sandbox is present when the target is a conform sandbox (the file
	// "conform serve --fixtures" writes, or a namespace's config): how a run
	// reaches its namespaces. The suite itself never reads it.
	Sandbox *SandboxAccess `json:"sandbox,omitempty"`
	// Timeout bounds each HTTP request; default 10s.
	Timeout time.Duration `json:"-"`
	// WaitTimeout bounds every asynchronous wait (file review, webhook delivery); default 10s.
	WaitTimeout time.Duration `json:"-"`
	// RunID tags every resource the suite creates; default derived from the clock.
	RunID string `json:"-"`
}

// SandboxAccess is how to reach the namespaces of a conform sandbox.
type SandboxAccess struct {
	// URL is the sandbox the admin token is for; a run uses the token only
	// against this target.
	URL string `json:"url"`
	// AdminToken authenticates minting and dropping namespaces (Bearer).
	AdminToken string `json:"admin_token,omitempty"`
	// Namespace is the namespace this config's credentials belong to.
	Namespace string `json:"namespace,omitempty"`
}

// The defaults of the settings a config may leave out.
const (
	defaultTimeout     = 10 * time.Second
	defaultWaitTimeout = 10 * time.Second
	defaultListen      = "127.0.0.1:0"
)

// ErrConfig marks configuration errors (exit code 2 in the CLI).
var ErrConfig = errors.New("steps: invalid configuration")

// LoadConfigFile reads a config file in the shape of Config.
func LoadConfigFile(path string) (Config, error) {
	var cfg Config
	b, err := os.ReadFile(path)
	if err != nil {
		return cfg, fmt.Errorf("%w: read %s: %w", ErrConfig, path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		if off, ok := errorOffset(err); ok {
			line, col := position(b, off)
			return cfg, fmt.Errorf("%w: parse %s:%d:%d: %w", ErrConfig, path, line, col, err)
		}
		return cfg, fmt.Errorf("%w: parse %s: %w", ErrConfig, path, err)
	}
	return cfg, nil
}

// errorOffset is the offset of the byte a JSON decoding error names (the
// errors count the bytes read, that one included): the character that
// breaks the syntax, or the last of a value of the wrong type. An unknown
// field names no offset (its name is in the message).
func errorOffset(err error) (int64, bool) {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return se.Offset - 1, true
	case errors.As(err, &te):
		return te.Offset - 1, true
	}
	return 0, false
}

// position converts a byte offset of b into a 1-based line and column.
func position(b []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(b)))
	before := b[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// Setting is one CONFORM_* environment variable of the suite's config: the
// single table that ApplyEnv reads, "conform run --help" prints and the
// settings table of steps/README.md shows.
type Setting struct {
	// Env is the variable, e.g. "CONFORM_TARGET".
	Env string
	// Key is the config-file key it overrides, e.g. "credentials.platform.username";
	// "" when the config file has none.
	Key string
	// Default is what holds when neither the variable nor the file sets it.
	Default string
	// set parses v into cfg.
	set func(cfg *Config, v string) error
}

// Settings returns every CONFORM_* variable, in the order ApplyEnv applies them.
func Settings() []Setting {
	text := func(dst func(*Config) *string) func(*Config, string) error {
		return func(c *Config, v string) error { *dst(c) = v; return nil }
	}
	duration := func(env string, dst func(*Config) *time.Duration) func(*Config, string) error {
		return func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return fmt.Errorf("%w: %s=%q is not a positive duration", ErrConfig, env, v)
			}
			*dst(c) = d
			return nil
		}
	}
	out := []Setting{{Env: "CONFORM_TARGET", Key: "target", Default: "the bundled reference, in-process", set: text(func(c *Config) *string { return &c.Target })}}
	for _, role := range []struct {
		env, key string
		cred     func(*Config) **Credential
	}{
		{"", "platform", func(c *Config) **Credential { return &c.Credentials.Platform }},
		{"MERCHANT_", "merchant", func(c *Config) **Credential { return &c.Credentials.Merchant }},
		{"OTHER_", "other_application", func(c *Config) **Credential { return &c.Credentials.OtherApplication }},
	} {
		out = append(out,
			Setting{Env: "CONFORM_" + role.env + "USER", Key: "credentials." + role.key + ".username", Default: "none",
				set: func(c *Config, v string) error { ownCredential(role.cred(c)).Username = v; return nil }},
			Setting{Env: "CONFORM_" + role.env + "PASSWORD", Key: "credentials." + role.key + ".password", Default: "none",
				set: func(c *Config, v string) error { ownCredential(role.cred(c)).Password = v; return nil }})
	}
	for _, fx := range (&Fixtures{}).fields() {
		key := fx.key
		out = append(out, Setting{Env: "CONFORM_FIXTURE_" + strings.ToUpper(key), Key: "fixtures." + key, Default: "none",
			set: text(func(c *Config) *string { return c.Fixtures.field(key) })})
	}
	return append(out,
		Setting{Env: "CONFORM_WEBHOOK_LISTEN", Key: "webhook_receiver.listen", Default: defaultListen,
			set: text(func(c *Config) *string { return &c.WebhookReceiver.Listen })},
		Setting{Env: "CONFORM_WEBHOOK_PUBLIC_URL", Key: "webhook_receiver.public_url", Default: "derived from listen",
			set: text(func(c *Config) *string { return &c.WebhookReceiver.PublicURL })},
		Setting{Env: "CONFORM_TIMEOUT", Default: defaultTimeout.String() + " per request",
			set: duration("CONFORM_TIMEOUT", func(c *Config) *time.Duration { return &c.Timeout })},
		Setting{Env: "CONFORM_WAIT_TIMEOUT", Default: defaultWaitTimeout.String() + " per asynchronous wait (file review, webhook delivery)",
			set: duration("CONFORM_WAIT_TIMEOUT", func(c *Config) *time.Duration { return &c.WaitTimeout })},
	)
}

// ApplyEnv overrides cfg with every variable of Settings that lookup reports
// set (os.LookupEnv in the CLI). Credentials are copied before they change, so
// the caller's cfg is left as it was.
func ApplyEnv(cfg Config, lookup func(string) (string, bool)) (Config, error) {
	for _, s := range Settings() {
		if v, ok := lookup(s.Env); ok {
			if err := s.set(&cfg, v); err != nil {
				return cfg, err
			}
		}
	}
	return cfg, nil
}

// ownCredential replaces *p by a copy of itself (a new credential if nil) and returns it.
func ownCredential(p **Credential) *Credential {
	c := Credential{}
	if *p != nil {
		c = **p
	}
	*p = &c
	return *p
}

// fixtureField is one fixture of the config: its config-file key and its field.
type fixtureField struct {
	key string
	p   *string
}

// fields lists the fixtures of f in the order of the struct.
func (f *Fixtures) fields() []fixtureField {
	return []fixtureField{
		{"buyer_identity", &f.BuyerIdentity},
		{"merchant", &f.Merchant},
		{"merchant_identity", &f.MerchantIdentity},
		{"plain_merchant", &f.PlainMerchant},
		{"plain_merchant_identity", &f.PlainMerchantIdentity},
		{"subscription_schedule", &f.SubscriptionSchedule},
		{"subscription_amount", &f.SubscriptionAmount},
		{"dispute", &f.Dispute},
		{"balance_transfer", &f.BalanceTransfer},
	}
}

// Placeholders are the fixtures of f as the steps expand {fixture:key}:
// each key and its value, in the order of the struct. Other packages
// sending the suite's requests (the explorer) take them from here.
func (f Fixtures) Placeholders() [][2]string {
	var out [][2]string
	for _, ff := range f.fields() {
		out = append(out, [2]string{ff.key, *ff.p})
	}
	return out
}

// field returns the field of a fixture key, nil if the key is unknown.
func (f *Fixtures) field(key string) *string {
	for _, ff := range f.fields() {
		if ff.key == key {
			return ff.p
		}
	}
	return nil
}

// fixture returns the value of a fixture key ("" if unset or unknown).
func (c Config) fixture(key string) string {
	if p := c.Fixtures.field(key); p != nil {
		return *p
	}
	return ""
}

// credential returns the credential of a role key ("platform", "merchant", "other_application").
func (c Config) credential(key string) *Credential {
	switch key {
	case "platform":
		return c.Credentials.Platform
	case "merchant":
		return c.Credentials.Merchant
	case "other_application":
		return c.Credentials.OtherApplication
	}
	return nil
}

// Check reports whether cfg can drive a run at all.
func (c Config) Check() error {
	if c.Target == "" {
		return fmt.Errorf("%w: no target URL", ErrConfig)
	}
	u, err := url.Parse(c.Target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%w: target %q is not an http(s) URL", ErrConfig, c.Target)
	}
	return nil
}

// decodeProfile reads the config's profile over the reference's defaults.
func (c Config) decodeProfile(v *judging.Judge) (judging.Profile, error) {
	if len(c.Profile) == 0 {
		return v.DefaultProfile(), nil
	}
	p, err := v.DecodeProfile(c.Profile)
	if err != nil {
		return judging.Profile{}, fmt.Errorf("%w: profile: %w", ErrConfig, err)
	}
	return p, nil
}

func (c Config) withDefaults(now time.Time) Config {
	c.Target = strings.TrimRight(c.Target, "/")
	if c.Timeout <= 0 {
		c.Timeout = defaultTimeout
	}
	if c.WaitTimeout <= 0 {
		c.WaitTimeout = defaultWaitTimeout
	}
	if c.WebhookReceiver.Listen == "" {
		c.WebhookReceiver.Listen = defaultListen
	}
	if c.RunID == "" {
		c.RunID = "run-" + strconv.FormatInt(now.UnixNano(), 36)
	}
	return c
}
