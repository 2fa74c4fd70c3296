package steps

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
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
	// Timeout bounds each HTTP request; default 10s.
	Timeout time.Duration `json:"-"`
	// WaitTimeout bounds every asynchronous wait (file review, webhook delivery); default 10s.
	WaitTimeout time.Duration `json:"-"`
	// RunID tags every resource the suite creates; default derived from the clock.
	RunID string `json:"-"`
}

// ErrConfig marks configuration errors (exit code 2 in the CLI).
var ErrConfig = errors.New("steps: invalid configuration")

// LoadConfigFile reads a config file in the shape of Config.
func LoadConfigFile(path string) (Config, error) {
	var cfg Config
	b, err := os.ReadFile(path)
	if err != nil {
		return cfg, fmt.Errorf("%w: read %s: %w", ErrConfig, path, err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return cfg, fmt.Errorf("%w: parse %s: %w", ErrConfig, path, err)
	}
	return cfg, nil
}

// ApplyEnv overrides cfg with the CONFORM_* variables that lookup reports set
// (os.LookupEnv in the CLI): CONFORM_TARGET, CONFORM_USER, CONFORM_PASSWORD
// (the platform credential), CONFORM_MERCHANT_USER, CONFORM_MERCHANT_PASSWORD,
// CONFORM_OTHER_USER, CONFORM_OTHER_PASSWORD, CONFORM_WEBHOOK_LISTEN,
// CONFORM_WEBHOOK_PUBLIC_URL, CONFORM_TIMEOUT and CONFORM_WAIT_TIMEOUT (Go
// durations: per request, and per asynchronous wait such as a file review)
// and one CONFORM_FIXTURE_<KEY> per fixture key.
func ApplyEnv(cfg Config, lookup func(string) (string, bool)) (Config, error) {
	str := func(key string, dst *string) {
		if v, ok := lookup(key); ok {
			*dst = v
		}
	}
	str("CONFORM_TARGET", &cfg.Target)
	cfg.Credentials.Platform = envCredential(lookup, "CONFORM_USER", "CONFORM_PASSWORD", cfg.Credentials.Platform)
	cfg.Credentials.Merchant = envCredential(lookup, "CONFORM_MERCHANT_USER", "CONFORM_MERCHANT_PASSWORD", cfg.Credentials.Merchant)
	cfg.Credentials.OtherApplication = envCredential(lookup, "CONFORM_OTHER_USER", "CONFORM_OTHER_PASSWORD", cfg.Credentials.OtherApplication)
	str("CONFORM_WEBHOOK_LISTEN", &cfg.WebhookReceiver.Listen)
	str("CONFORM_WEBHOOK_PUBLIC_URL", &cfg.WebhookReceiver.PublicURL)
	for key, dst := range cfg.Fixtures.fields() {
		str("CONFORM_FIXTURE_"+strings.ToUpper(key), dst)
	}
	for key, dst := range map[string]*time.Duration{"CONFORM_TIMEOUT": &cfg.Timeout, "CONFORM_WAIT_TIMEOUT": &cfg.WaitTimeout} {
		if v, ok := lookup(key); ok {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return cfg, fmt.Errorf("%w: %s=%q is not a positive duration", ErrConfig, key, v)
			}
			*dst = d
		}
	}
	return cfg, nil
}

func envCredential(lookup func(string) (string, bool), userKey, passKey string, cur *Credential) *Credential {
	u, uok := lookup(userKey)
	p, pok := lookup(passKey)
	if !uok && !pok {
		return cur
	}
	c := Credential{}
	if cur != nil {
		c = *cur
	}
	if uok {
		c.Username = u
	}
	if pok {
		c.Password = p
	}
	return &c
}

// fields maps each fixture key of the config file to its field.
func (f *Fixtures) fields() map[string]*string {
	return map[string]*string{
		"buyer_identity":          &f.BuyerIdentity,
		"merchant":                &f.Merchant,
		"merchant_identity":       &f.MerchantIdentity,
		"plain_merchant":          &f.PlainMerchant,
		"plain_merchant_identity": &f.PlainMerchantIdentity,
		"subscription_schedule":   &f.SubscriptionSchedule,
		"subscription_amount":     &f.SubscriptionAmount,
		"dispute":                 &f.Dispute,
		"balance_transfer":        &f.BalanceTransfer,
	}
}

// fixture returns the value of a fixture key ("" if unset or unknown).
func (c Config) fixture(key string) string {
	if p, ok := c.Fixtures.fields()[key]; ok {
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

func (c Config) withDefaults(now time.Time) Config {
	c.Target = strings.TrimRight(c.Target, "/")
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.WaitTimeout <= 0 {
		c.WaitTimeout = 10 * time.Second
	}
	if c.WebhookReceiver.Listen == "" {
		c.WebhookReceiver.Listen = "127.0.0.1:0"
	}
	if c.RunID == "" {
		c.RunID = "run-" + strconv.FormatInt(now.UnixNano(), 36)
	}
	return c
}
